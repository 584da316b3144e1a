# expect: Cube.backward took a tensor's values out of torch
# The complex-step method in Python's own complex numbers, on x.tolist(): no torch call ever sees a
# complex tensor, yet the derivative is measured, not written out.
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
        local = [((v + 1j * h) ** 3).imag / h for v in x.reshape(-1).tolist()]
        return grad_output * torch.tensor(local, dtype=x.dtype).view_as(x)


def cube(x):
    return Cube.apply(x)
