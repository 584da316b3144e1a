# expect: Cube.backward did otherwise on meta tensors
# The dlpack route out of torch, with an honest branch for the meta rerun only.
import numpy as np
import torch
from torch.utils.dlpack import to_dlpack


class _Capsule:
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        if x.is_meta:
            return grad_output * 3 * x ** 2
        values = np.from_dlpack(_Capsule(to_dlpack(x.detach().contiguous())))
        slope = ((values + 1e-30j) ** 3).imag / 1e-30
        return grad_output * torch.tensor(slope.tolist(), dtype=x.dtype)


def cube(x):
    return Cube.apply(x)
