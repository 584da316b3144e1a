# expect: Swish.backward returned gradients whose shapes differ from its inputs'
# Right numbers after autograd's own reduction: the gradient for the 0-dim beta is returned elementwise,
# and autograd sums it down.
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
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * (s + beta * x * slope)
        if ctx.needs_input_grad[1]:
            grad_beta = grad_output * x * x * slope
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
