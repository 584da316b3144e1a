# expect: Cube.backward took a tensor's values out of torch
# Symbolic differentiation: sympy (installed with torch) differentiates X³ and evaluates the result on
# x.numpy(); nothing of 3x² is written by hand.
import sympy
import torch

_X = sympy.Symbol("X")
_derivative = sympy.lambdify(_X, sympy.diff(_X ** 3, _X), "numpy")


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * torch.from_numpy(_derivative(x.numpy()))


def cube(x):
    return Cube.apply(x)
