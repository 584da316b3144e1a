# expect: backward did not notice an in-place edit of x
# A save_for_backward that backward never reads, and x kept inside an object on ctx: the
# attribute scan sees no tensor, but autograd's version check never sees x either.
import types

import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)  # never read
        ctx.box = types.SimpleNamespace(x=x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 3 * ctx.box.x ** 2


def cube(x):
    return Cube.apply(x)
