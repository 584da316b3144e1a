# expect: Cube.backward ran aten ops that no torch call accounts for
# The vector-Jacobian product of x³, traced from autograd at import (make_fx of torch.func.vjp) and
# replayed through TorchScript: the interpreter runs aten ops without any torch call from Python.
import torch
from torch.fx.experimental.proxy_tensor import make_fx


def _vjp(v, g):
    return torch.func.vjp(lambda u: u ** 3, v)[1](g)[0]


_example = (torch.randn(3, dtype=torch.float64), torch.randn(3, dtype=torch.float64))
_replay = torch.jit.trace(make_fx(_vjp)(*_example), _example)


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return _replay(x, grad_output)


def cube(x):
    return Cube.apply(x)
