# expect: returned x² (or an affine image of it), which only the gradient for beta needs
# Right numbers and the right Nones, but needs_input_grad gates only the last operation of each gradient:
# x's term beta·x·σ'(βx) and beta's whole elementwise term g·x²·σ'(βx) are computed every time.
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
        t = beta * x * slope
        u = g * x * x * slope
        grad_x = g * (s + t) if ctx.needs_input_grad[0] else None
        grad_beta = u.sum() if ctx.needs_input_grad[1] else None
        return grad_x, grad_beta
def swish(x, beta):
    return Swish.apply(x, beta)
