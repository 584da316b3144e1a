# expect: backward did not notice an in-place edit of beta
# Right numbers, but only x goes through save_for_backward; beta is kept as a Python number on ctx.
import torch


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, beta = inputs
        ctx.save_for_backward(x)
        ctx.beta = float(beta)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        beta = ctx.beta
        s = torch.sigmoid(beta * x)
        slope = s * (1 - s)
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * (s + beta * x * slope)
        if ctx.needs_input_grad[1]:
            grad_beta = (grad_output * x * x * slope).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
