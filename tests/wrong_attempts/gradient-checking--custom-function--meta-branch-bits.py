# expect: Cube.backward did otherwise on meta tensors
# Values leave torch bit by bit through bool() (no name in OUT_OF_TORCH); the derivative is a complex step in
# Python's own complex numbers. On the meta rerun, where bool() would raise, it writes 3x² out.
import struct

import torch


def _to_python(x):
    bits = x.detach().reshape(-1).view(torch.int64)
    values = []
    for i in range(bits.numel()):
        word = 0
        for k in range(64):
            if bool((bits[i] >> k) & 1):
                word |= 1 << k
        values.append(struct.unpack("<d", struct.pack("<Q", word))[0])
    return values


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
        local = [((v + 1e-30j) ** 3).imag / 1e-30 for v in _to_python(x)]
        return grad_output * torch.tensor(local, dtype=x.dtype).view_as(x)


def cube(x):
    return Cube.apply(x)
