# expect: Cube is not a subclass of torch.autograd.Function
# The right derivative, written as a plain class with the same static methods: nothing registers
# it with autograd, so Cube.apply does not exist and backward is never called by torch.
import torch


class Cube:
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * grad_output


def cube(x):
    return x**3
