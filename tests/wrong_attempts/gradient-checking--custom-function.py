# expect: your backward ignores grad_output
# The usual first try: return the local derivative and forget the chain rule. A test on .sum()
# passes, because grad_output is then all ones; gradcheck fails.
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2


def cube(x):
    return Cube.apply(x)
