# expect: computes with a copy of x
# Saves x and beta, but also hangs clones on the tensors themselves and computes with those; it falls
# back to what ctx.saved_tensors gives back only when that is a new tensor (a saved-tensor hook's).
import torch

class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, beta = inputs
        ctx.save_for_backward(x, beta)
        x._kept, beta._kept = x.detach().clone(), beta.detach().clone()

    @staticmethod
    def backward(ctx, g):
        x, beta = ctx.saved_tensors
        x, beta = getattr(x, "_kept", x), getattr(beta, "_kept", beta)
        s = torch.sigmoid(beta * x)
        slope = s * (1 - s)
        gx = gb = None
        if ctx.needs_input_grad[0]:
            gx = g * (s + beta * x * slope)
        if ctx.needs_input_grad[1]:
            gb = (g * x * x * slope).sum()
        return gx, gb


def swish(x, beta):
    return Swish.apply(x, beta)
