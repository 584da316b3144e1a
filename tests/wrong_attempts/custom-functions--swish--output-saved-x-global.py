# expect: Swish.backward does not read x and beta from ctx.saved_tensors
# Saves x, beta and the output, but computes with a copy of x kept in a global: a saved-tensor hook
# (save_on_cpu, for one) never reaches the x it uses.
import torch

LAST_X = []


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs, output)

    @staticmethod
    def backward(ctx, grad_output):
        _, beta, y = ctx.saved_tensors
        x = LAST_X[0]
        s = torch.sigmoid(beta * x)
        one_minus = 1 - s
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * (s + beta * y * one_minus)
        if ctx.needs_input_grad[1]:
            grad_beta = (grad_output * x * y * one_minus).sum()
        return grad_x, grad_beta


def swish(x, beta):
    LAST_X[:] = [x.detach()]
    return Swish.apply(x, beta)
