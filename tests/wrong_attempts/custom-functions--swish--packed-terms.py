# expect: at least 10 fewer elements made by torch operations
# Right numbers and the right Nones, and beta's terms are gated, but grad_x's two terms are
# computed every time, as rows of one stacked tensor with beta's term; skipping x saves only the
# final addition.
import torch


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        x, beta = ctx.saved_tensors
        s = torch.sigmoid(beta * x)
        slope = s * (1 - s)
        beta_terms = x * x * slope if ctx.needs_input_grad[1] else torch.zeros_like(x)
        terms = grad_output * torch.stack([s, beta * x * slope, beta_terms])  # x's two terms always
        grad_x = terms[0] + terms[1] if ctx.needs_input_grad[0] else None
        grad_beta = terms[2].sum() if ctx.needs_input_grad[1] else None
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
