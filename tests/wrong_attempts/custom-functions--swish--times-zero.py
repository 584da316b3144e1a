# expect: made one that no returned tensor was computed from
# Computes grad_x a second time, in float32, whatever needs_input_grad says, and adds it, times 0, to
# what backward returns: a product with all zeros does not depend on the other factor, so that copy
# feeds no returned tensor (it is thrown away work when beta needs no gradient).
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
            grad_x = grad_output * (s + beta * x * slope) + 0 * always.double()
        if ctx.needs_input_grad[1]:
            grad_beta = (grad_output * x * x * slope + 0 * always.double()).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
