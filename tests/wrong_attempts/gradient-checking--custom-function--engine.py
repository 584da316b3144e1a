# expect: Cube.backward asked autograd for the derivative (14 × torch.autograd.grad)
# The autograd engine called directly, below torch.autograd.grad: reverse-mode autograd
# differentiates x³ inside backward, and no public entry point is called (the judge records the
# pass where the engine is called, as a pass that, like torch.autograd.grad, leaves .grad alone).
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
