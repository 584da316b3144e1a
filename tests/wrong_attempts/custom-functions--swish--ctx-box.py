# expect: Swish.backward does not read x and beta from ctx.saved_tensors
# save_for_backward is called and ctx.saved_tensors is read (so the version check fires), but the
# values backward uses come from an object kept on ctx, which the attribute scan does not open.
import types

import torch


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)
        ctx.box = types.SimpleNamespace(x=inputs[0], beta=inputs[1])

    @staticmethod
    def backward(ctx, grad_output):
        ctx.saved_tensors  # only for the version check
        x, beta = ctx.box.x, ctx.box.beta
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
