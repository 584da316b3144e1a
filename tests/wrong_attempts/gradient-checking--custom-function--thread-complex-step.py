# expect: Cube.backward started another thread
# The complex-step method in a worker thread: the judge's spies (torch-function and dispatch modes,
# saved-tensor hooks) are thread-local and see nothing of what the thread computes.
import threading

import torch


def _in_thread(fn, *args):
    box = []
    t = threading.Thread(target=lambda: box.append(fn(*args)))
    t.start(); t.join()
    return box[0]


def _slope(x):
    h = 1e-30
    z = torch.complex(x, torch.full_like(x, h))
    return (z ** 3).imag / h


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * _in_thread(_slope, x)


def cube(x):
    return Cube.apply(x)
