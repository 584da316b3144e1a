# expect: the gradient for x is missing the factor beta of the inner derivative
# The usual first try: sigmoid's derivative s(1 - s), but not the derivative of beta * x inside it.
import torch


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)  # version-checked, and freed after backward

    @staticmethod
    def backward(ctx, grad_output):
        x, beta = ctx.saved_tensors
        s = torch.sigmoid(beta * x)
        slope = s * (1 - s)  # sigmoid'(beta * x)
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * (s + x * slope)
        if ctx.needs_input_grad[1]:
            # beta is one number used by every element: its gradient is the sum over all of them.
            grad_beta = (grad_output * x * x * slope).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)

