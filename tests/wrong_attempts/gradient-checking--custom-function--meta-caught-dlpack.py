# expect: Cube.backward did otherwise on meta tensors
# The dlpack route out of torch, with no branch on the device: on the meta rerun, to_dlpack raises and
# backward catches the error.
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
        flat = x.detach().contiguous()
        try:
            values = np.from_dlpack(_Capsule(to_dlpack(flat)))
        except Exception:
            values = np.zeros(tuple(x.shape))
        slope = ((values + 1e-30j) ** 3).imag / 1e-30
        return grad_output * torch.tensor(slope.tolist(), dtype=x.dtype, device=x.device)


def cube(x):
    return Cube.apply(x)
