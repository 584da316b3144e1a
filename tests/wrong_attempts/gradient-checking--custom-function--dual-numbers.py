# expect: Cube.backward asked autograd for the derivative in forward mode
# Dual numbers (torch.autograd.forward_ad): x³ evaluated with grad_output as tangent, whose
# tangent out is grad_output · 3x², computed by autograd rather than by hand.
import torch
import torch.autograd.forward_ad as fwAD


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        with fwAD.dual_level():
            dual = fwAD.make_dual(x.detach(), grad_output.detach())
            return fwAD.unpack_dual(dual ** 3).tangent


def cube(x):
    return Cube.apply(x)
