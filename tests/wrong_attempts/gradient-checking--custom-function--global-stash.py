# expect: backward ignored what ctx.saved_tensors handed back
# save_for_backward as a decoy: backward unpacks ctx.saved_tensors, which keeps the version check,
# then ignores it and uses a copy of x kept in a module-level dict, out of reach of the ctx scan.
import torch

STASH = {}


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        STASH["x"] = x.detach().clone()
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # unpacked and ignored
        x = STASH["x"]
        return grad_output * 3 * x ** 2


def cube(x):
    return Cube.apply(x)
