"""Reference solution: save x and beta, differentiate by hand, and skip what no input requires."""

import torch
from torch.autograd import gradcheck


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)  # version-checked; freed by a backward that does not retain the graph

    @staticmethod
    def backward(ctx, grad_output):
        x, beta = ctx.saved_tensors
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


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(5, dtype=torch.float64, requires_grad=True)
    beta = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    print("gradcheck:", gradcheck(swish, (x, beta)))
