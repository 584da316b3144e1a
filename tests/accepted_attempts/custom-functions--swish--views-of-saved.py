# A right solution that works on views of the saved tensors (reshape, view_as): views record no graph
# and reduce nothing, so the method checks must not mistake them for autograd or for a skipped sum.
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
        flat, g = x.reshape(-1), grad_output.reshape(-1)
        s = torch.sigmoid(beta * flat)
        slope = s * (1 - s)
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            grad_x = (g * (s + beta * flat * slope)).view_as(x)
        if ctx.needs_input_grad[1]:
            grad_beta = (g * flat * flat * slope).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
