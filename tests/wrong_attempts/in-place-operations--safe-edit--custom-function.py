# expect: the result is not computed by the code of forward any more
# Replaces the whole computation by a custom Function with hand-derived gradients: no edit was fixed.
import torch


class Whole(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, q):
        a = 2 * x
        s = torch.sigmoid(a)
        ctx.save_for_backward(a, s, q)
        return ((s + 1) * (a * q + 1) + a + 1).sum()

    @staticmethod
    def backward(ctx, grad_output):
        a, s, q = ctx.saved_tensors
        d_a = s * (1 - s) * (a * q + 1) + (s + 1) * q + 1
        return grad_output * 2 * d_a, grad_output * (s + 1) * a


def forward(x, q):
    return Whole.apply(x, q)
