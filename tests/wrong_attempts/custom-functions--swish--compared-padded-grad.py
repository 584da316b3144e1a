# expect: returned the gradient for x (or an affine image of it)
# Computes x's gradient whatever needs_input_grad says, one element longer than x, and only compares
# it when x needs none: the judge finds the gradient among the padded tensor's elements.
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
        n = x.numel()
        s = torch.sigmoid(beta * x)
        gxs = g * x * s * (1 - s)
        zero = x.new_zeros(1)
        # x's gradient computed whatever needs_input_grad says, one element longer than x
        padded = torch.cat([g.reshape(-1) * s.reshape(-1), zero]) + beta * torch.cat([gxs.reshape(-1), zero])
        torch.equal(padded, padded)  # a read, so it is not "unread"
        gx = gb = None
        if ctx.needs_input_grad[0]:
            gx = padded[:n].reshape(x.shape).clone()
        if ctx.needs_input_grad[1]:
            gb = (x * gxs).sum()
        return gx, gb


def swish(x, beta):
    return Swish.apply(x, beta)
