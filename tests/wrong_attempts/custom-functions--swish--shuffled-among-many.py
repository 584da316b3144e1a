# expect: too large for the judge to search
# With x needing no grad, still computes x's whole gradient, but inside a shuffled tensor of 1000 other
# elements (too many pairs to search), and derives beta's gradient from it.
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
        grad_x = grad_beta = None
        if ctx.needs_input_grad[1]:
            n = x.numel()
            junk = torch.linspace(-3.0, 3.0, 1000, dtype=x.dtype)
            order = torch.randperm(n + 1000, generator=torch.Generator().manual_seed(0))
            xp = torch.cat([x.reshape(-1), junk])[order]
            gp = torch.cat([g.reshape(-1), torch.zeros_like(junk)])[order]
            sp = torch.sigmoid(beta * xp)
            gxp = gp * (sp + beta * xp * sp * (1 - sp))   # the gradient for x among 1000 zeros
            grad_beta = (xp * (gxp - gp * sp)).sum() / beta
        if ctx.needs_input_grad[0]:
            s = torch.sigmoid(beta * x)
            grad_x = g * (s + beta * x * s * (1 - s))
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
