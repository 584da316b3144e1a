# expect: Cube.backward asked autograd for the derivative in forward mode
# The derivative from forward-mode autograd (torch.func.jvp): no torch.autograd.grad and no
# backward() is called, but nothing of 3x² is written by hand either.
import torch
from torch.func import jvp


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return jvp(lambda v: v ** 3, (x,), (grad_output,))[1]


def cube(x):
    return Cube.apply(x)
