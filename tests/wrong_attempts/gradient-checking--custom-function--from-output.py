# expect: Cube.backward did not compute the gradient from the x it read back from ctx.saved_tensors
# Saves x, which trips the version check, and the output; backward computes 3x² from the output,
# 3·|x³|^(2/3), and never uses x. The cube root's rounding is far inside the 1e-10 check.
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x ** 3
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        _, out = ctx.saved_tensors
        return grad_output * 3 * out.abs() ** (2 / 3)


def cube(x):
    return Cube.apply(x)
