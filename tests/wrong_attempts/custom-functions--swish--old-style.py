# expect: Swish has no setup_context: its forward takes ctx, the older style
# Right numbers in the older style: forward takes ctx and saves there; no setup_context, so torch.func refuses it.
import torch


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, beta):
        ctx.save_for_backward(x, beta)
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def backward(ctx, grad_output):
        x, beta = ctx.saved_tensors
        s = torch.sigmoid(beta * x)
        slope = s * (1 - s)
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * (s + beta * x * slope)
        if ctx.needs_input_grad[1]:
            grad_beta = (grad_output * x * x * slope).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
