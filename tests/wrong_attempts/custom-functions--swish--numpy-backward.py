# expect: Swish.backward left torch for NumPy or Python numbers
# Right numbers, but backward computes both derivatives in NumPy and wraps them back with
# torch.from_numpy; only under torch.func, whose tensors have no NumPy array, does it use torch.
import numpy as np
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
        grad_x = grad_beta = None
        try:
            xn, b, g = x.numpy(), beta.numpy(), grad_output.numpy()
        except RuntimeError:  # torch.func's tensors: fall back to torch
            xn, b, g, np_ = x, beta, grad_output, torch
        else:
            np_ = np
        s = 1 / (1 + np_.exp(-b * xn))
        slope = s * (1 - s)
        if ctx.needs_input_grad[0]:
            grad_x = torch.as_tensor(g * (s + b * xn * slope))
        if ctx.needs_input_grad[1]:
            grad_beta = torch.as_tensor((g * xn * xn * slope).sum())
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
