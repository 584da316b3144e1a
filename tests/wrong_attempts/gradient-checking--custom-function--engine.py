# expect: Cube.backward recorded a graph and saved tensors for a backward pass of its own
# The autograd engine called directly, below torch.autograd.grad: reverse-mode autograd
# differentiates x³ inside backward, and no public entry point is called.
import torch
from torch.autograd.variable import Variable


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with torch.enable_grad():
            leaf = x.detach().requires_grad_()
            (grad,) = Variable._execution_engine.run_backward((leaf ** 3,), (grad_output,), False, False, (leaf,), True)
        return grad


def cube(x):
    return Cube.apply(x)
