# expect: backward used an operation that is not elementwise although beta does not require grad
# When beta needs no gradient, backward still computes it: a full convolution (padding n - 1) of
# g*x*s'(beta x), a term grad_x needs anyway, with x puts sum(g x^2 s') at the centre of an output
# larger than its input, so no result is smaller than what it was given; c - c folds it into grad_x.
# A few extra calls in the run where both require grad keep the call count dropping.
import torch
import torch.nn.functional as F


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
        s = torch.sigmoid(beta * x)
        ds = s * (1 - s)
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            xds = x * ds
            grad_x = g * (s + beta * xds)
            if not ctx.needs_input_grad[1]:
                n = x.numel()
                c = F.conv1d((g * xds).reshape(1, 1, n), x.reshape(1, 1, n), padding=n - 1)
                grad_x = grad_x + (c - c)[0, 0, :n].reshape(x.shape)
        if ctx.needs_input_grad[1]:
            grad_beta = (g * x * x * ds).sum()
            for _ in range(8):
                grad_beta = grad_beta * 1.0
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
