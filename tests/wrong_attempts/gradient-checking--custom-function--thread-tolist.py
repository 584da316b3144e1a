# expect: Cube.backward started another thread
# Values to Python floats and a Python complex step, in a worker thread, where no spy sees the tolist.
import threading

import torch


def _in_thread(fn, *args):
    box = []
    t = threading.Thread(target=lambda: box.append(fn(*args)))
    t.start(); t.join()
    return box[0]


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


def _slope(x):  # values to Python floats, derivative as Python complex step
    return torch.tensor([((v + 1e-30j) ** 3).imag / 1e-30 for v in x.reshape(-1).tolist()],
                        dtype=x.dtype).reshape(x.shape)
