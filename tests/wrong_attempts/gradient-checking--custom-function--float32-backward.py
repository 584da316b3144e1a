# expect: gradcheck would let this through
# A correct backward computed in float32: a float64 gradcheck passes it (float32 rounding is far
# inside rtol), the judge's 1e-10 check on the gradient does not.
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return (grad_output.float() * 3 * x.float() ** 2).double()


def cube(x):
    return Cube.apply(x)
