# expect: Cube.backward started another thread
# The traced-derivative attempt (a make_fx replay of torch.func.grad) with only the replay moved into a
# worker thread, where no spy sees the torch.ops calls.
import threading

import torch
from torch.fx.experimental.proxy_tensor import make_fx


def _in_thread(fn, *args):
    box = []
    t = threading.Thread(target=lambda: box.append(fn(*args)))
    t.start(); t.join()
    return box[0]


_derivative = make_fx(torch.func.grad(lambda v: (v ** 3).sum()), tracing_mode="symbolic")(
    torch.randn(5, dtype=torch.float64))


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * _in_thread(_derivative, x.reshape(-1)).view_as(x)


def cube(x):
    return Cube.apply(x)
