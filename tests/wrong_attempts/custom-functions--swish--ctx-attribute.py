# expect: forward kept its tensors as attributes of ctx (ctx.beta, ctx.x)
# Right numbers, but x and beta kept as plain attributes of ctx: no version check, no freeing.
import torch


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.x, ctx.beta = inputs

    @staticmethod
    def backward(ctx, grad_output):
        x, beta = ctx.x, ctx.beta
        s = torch.sigmoid(beta * x)
        slope = s * (1 - s)  # sigmoid'(beta * x)
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * (s + beta * x * slope)
        if ctx.needs_input_grad[1]:
            # beta is one number used by every element: its gradient is the sum over all of them.
            grad_beta = (grad_output * x * x * slope).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)

