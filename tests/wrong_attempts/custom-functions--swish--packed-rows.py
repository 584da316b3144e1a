# expect: backward computed the gradient for x although x does not require grad
# Right numbers and the right Nones, and beta's terms are gated, but grad_x is computed every
# time, packed as row 0 of one stacked tensor with beta's terms (or zeros) as row 1, so that no
# tensor of x's size equals it.
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
        s = torch.sigmoid(beta * x)
        slope = s * (1 - s)
        # row 0: grad_x, always; row 1: the terms of grad_beta, only when beta needs them
        beta_terms = x * x * slope if ctx.needs_input_grad[1] else torch.zeros_like(x)
        both = g * (torch.stack([s, beta_terms]) + torch.stack([beta * x * slope, torch.zeros_like(x)]))
        grad_x = both[0] if ctx.needs_input_grad[0] else None
        grad_beta = both[1].sum() if ctx.needs_input_grad[1] else None
        return grad_x, grad_beta

def swish(x, beta):
    return Swish.apply(x, beta)
