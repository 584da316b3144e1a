# expect: backward computed a tensor that nothing used
# Right numbers and the right Nones, and beta's gradient is gated whole, but x's term beta·x·σ'(βx) is
# computed every time: skipping x saves only the addition and the product with grad_output.
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
        grad_x = g * (s + t) if ctx.needs_input_grad[0] else None
        grad_beta = (g * x * x * slope).sum() if ctx.needs_input_grad[1] else None
        return grad_x, grad_beta
def swish(x, beta):
    return Swish.apply(x, beta)
