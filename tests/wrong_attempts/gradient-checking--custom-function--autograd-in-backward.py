# expect: Cube.backward asked autograd for the derivative
# The "hand-written" backward asks autograd for the derivative of x ** 3 instead of writing 3x².
import torch


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
            (grad,) = torch.autograd.grad(leaf ** 3, leaf, grad_output)
        return grad


def cube(x):
    return Cube.apply(x)
