# expect: returned the gradient for x (or an affine image of it)
# Computes x's gradient every time on x and grad_output flipped, so that it is the gradient in reversed
# order; flips it back only when x needs it, and otherwise adds its sum, times 0, to beta's gradient.
import torch


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, g):
        x, beta = ctx.saved_tensors
        dims = list(range(x.dim()))
        # x's gradient, always computed, in reversed element order
        xf, gf = x.flip(dims), g.flip(dims)
        sf = torch.sigmoid(beta * xf)
        gxf = gf * (sf + beta * xf * sf * (1 - sf))
        gx = gb = None
        if ctx.needs_input_grad[0]:
            gx = gxf.flip(dims)
        if ctx.needs_input_grad[1]:
            s = torch.sigmoid(beta * x)
            gb = (g * x * x * s * (1 - s)).sum() + 0 * gxf.sum()
        return gx, gb


def swish(x, beta):
    return Swish.apply(x, beta)
