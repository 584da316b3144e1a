# expect: returned x² (or an affine image of it)
# Always computes beta's summand g·x²·σ'(βx), padded by one zero so that no tensor has x's size, and
# folds it into grad_x as (t − t)[:n]; only its sum waits for needs_input_grad[1].
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
        xp = torch.cat([x.reshape(-1), x.new_zeros(1)])
        gp = torch.cat([g.reshape(-1), g.new_zeros(1)])
        sp = torch.sigmoid(beta * xp)
        t = gp * xp * xp * sp * (1 - sp)   # always: beta's summand, one zero appended
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            s = torch.sigmoid(beta * x)
            grad_x = g * (s + beta * x * s * (1 - s)) + (t - t)[: x.numel()].reshape(x.shape)
        if ctx.needs_input_grad[1]:
            grad_beta = t.sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
