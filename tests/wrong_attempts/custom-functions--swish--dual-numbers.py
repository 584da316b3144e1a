# expect: Swish.backward asked autograd for the derivative in forward mode
# Right numbers, but backward has forward-mode AD (dual numbers) compute both derivatives instead of
# writing them: no backward pass, so counting torch.autograd.grad and backward() sees nothing.
import torch
import torch.autograd.forward_ad as fwAD


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        x, beta = ctx.saved_tensors
        grad_x = grad_beta = None
        with fwAD.dual_level():
            if ctx.needs_input_grad[0]:
                dual_x = fwAD.make_dual(x, grad_output)
                grad_x = fwAD.unpack_dual(dual_x * torch.sigmoid(beta * dual_x)).tangent
            if ctx.needs_input_grad[1]:
                dual_beta = fwAD.make_dual(beta, torch.ones_like(beta))
                grad_beta = (grad_output * fwAD.unpack_dual(x * torch.sigmoid(dual_beta * x)).tangent).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
