# expect: backward computed the gradient for x although x does not require grad
# Right numbers and the right Nones, but grad_x is computed every time, packed as row 0 of one
# stacked tensor with beta's terms as row 1, so that no tensor of x's size equals it.
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
        # row 0: grad_x, row 1: the terms of grad_beta -- always both
        both = g * (torch.stack([s, x * x * slope]) + torch.stack([beta * x * slope, torch.zeros_like(x)]))
        grad_x = both[0] if ctx.needs_input_grad[0] else None
        grad_beta = both[1].sum() if ctx.needs_input_grad[1] else None
        return grad_x, grad_beta

def swish(x, beta):
    return Swish.apply(x, beta)
