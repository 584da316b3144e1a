"""Reference solution: save the input, and multiply the local derivative by grad_output."""

import torch
from torch.autograd import gradcheck


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        # The chain rule: the local derivative 3x², times the gradient that arrives from above.
        # Without the product, a .sum() test still passes (grad_output is all ones); gradcheck does not.
        return grad_output * 3 * x ** 2


def cube(x):
    return Cube.apply(x)


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    cube(x).sum().backward()
    print("x.grad == 3x²:", torch.allclose(x.grad, 3 * x.detach() ** 2))
    print("gradcheck:", gradcheck(cube, (x,)))
