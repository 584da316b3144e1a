# expect: Swish.backward computed with complex numbers (the complex-step method)
# Right numbers, but backward takes both derivatives by the complex step, Im f(x + ih) / h: a numerical
# derivative in torch operations, with no autograd pass, instead of one written by hand.
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
        h = 1e-30
        grad_x = grad_beta = None
        col = x.unsqueeze(-1)
        if ctx.needs_input_grad[0]:
            xc = torch.complex(col, torch.full_like(col, h))
            grad_x = grad_output * ((xc * torch.sigmoid(beta * xc)).imag / h).squeeze(-1)
        if ctx.needs_input_grad[1]:
            bc = torch.complex(beta.expand_as(col), torch.full_like(col, h))
            grad_beta = (grad_output * ((col * torch.sigmoid(bc * col)).imag / h).squeeze(-1)).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
