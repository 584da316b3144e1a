# expect: Cube.backward computed the derivative numerically, in complex arithmetic
# The complex-step method: Im f(x + ih) / h is f'(x) to rounding for a tiny h. No autograd, but
# the derivative is measured, not written out.
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        h = 1e-30
        z = torch.complex(x, torch.full_like(x, h))
        return grad_output * (z ** 3).imag / h


def cube(x):
    return Cube.apply(x)
