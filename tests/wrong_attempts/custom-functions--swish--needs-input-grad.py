# expect: returned a gradient for beta although beta does not require grad
# Right numbers, but both gradients are computed and returned every time: ctx.needs_input_grad ignored.
import torch


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)  # version-checked, and freed after backward

    @staticmethod
    def backward(ctx, grad_output):
        x, beta = ctx.saved_tensors
        s = torch.sigmoid(beta * x)
        slope = s * (1 - s)  # sigmoid'(beta * x)
        grad_x = grad_output * (s + beta * x * slope)
        grad_beta = (grad_output * x * x * slope).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)

