# expect: forward kept its tensors as attributes of ctx (ctx.x) instead of ctx.save_for_backward
# Keeps x as a plain attribute of ctx: no check that x was modified in place, and no freeing after backward.
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 3 * ctx.x ** 2


def cube(x):
    return Cube.apply(x)
