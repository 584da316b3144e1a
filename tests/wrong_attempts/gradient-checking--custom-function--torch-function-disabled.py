# expect: Cube.backward ran aten ops that no torch call accounts for
# torch's own complex step, with torch-function handling switched off so that no torch call is seen.
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        h = 1e-30
        with torch._C.DisableTorchFunction():
            z = torch.complex(x, torch.full_like(x, h))
            return grad_output * (z ** 3).imag / h


def cube(x):
    return Cube.apply(x)
