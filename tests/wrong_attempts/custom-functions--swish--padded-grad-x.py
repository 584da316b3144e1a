# expect: returned the gradient for x (or an affine image of it)
# With x needing no grad, still computes x's whole gradient, one zero element appended (no tensor
# has x's size), and derives beta's gradient from it: sum(x·(gx − g·s))/β.
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
            xp = torch.cat([x.reshape(-1), x.new_zeros(1)])
            gp = torch.cat([g.reshape(-1), g.new_zeros(1)])
            sp = torch.sigmoid(beta * xp)
            gxp = gp * (sp + beta * xp * sp * (1 - sp))   # the gradient for x, one zero appended
            grad_beta = (xp * (gxp - gp * sp)).sum() / beta
        if ctx.needs_input_grad[0]:
            s = torch.sigmoid(beta * x)
            grad_x = g * (s + beta * x * s * (1 - s))
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
