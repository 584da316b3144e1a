# expect: returned the gradient for x (or an affine image of it)
# Right numbers and the right Nones, but grad_x is computed every time in float32, where rounding
# (~1e-7) hides it from a float64 comparison at 1e-9; it is added and subtracted in what backward returns,
# so that no result goes unread, and the float64 grad_x is recomputed only when x needs it.
import torch


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        x, beta = ctx.saved_tensors
        s = torch.sigmoid(beta * x)
        slope = s * (1 - s)
        x32, b32, g32, s32 = x.float(), beta.float(), grad_output.float(), s.float()
        always = g32 * (s32 + b32 * x32 * s32 * (1 - s32))
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * (s + beta * x * slope) + (always.double() - always.double())
        if ctx.needs_input_grad[1]:
            grad_beta = (grad_output * x * x * slope + (always.double() - always.double())).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
