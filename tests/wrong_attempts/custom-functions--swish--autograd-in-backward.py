# expect: Swish.backward asked autograd for the derivative
# Right numbers, but backward asks autograd for both derivatives instead of writing them.
import torch


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
        with torch.enable_grad():
            x_, beta_ = x.detach().requires_grad_(), beta.detach().requires_grad_()
            grad_x, grad_beta = torch.autograd.grad(x_ * torch.sigmoid(beta_ * x_), (x_, beta_), grad_output)
        return (grad_x if ctx.needs_input_grad[0] else None), (grad_beta if ctx.needs_input_grad[1] else None)


def swish(x, beta):
    return Swish.apply(x, beta)
