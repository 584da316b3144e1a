# expect: Swish.backward evaluated a transcendental function away from beta·x (finite differences)
# Right numbers, but backward takes both derivatives by a real-valued finite difference, a 4th-order
# central stencil in x and in beta with h = 1e-3: a numerical derivative, as the complex step is,
# accurate to about 1e-13, inside the gradient's tolerance, and no derivative written by hand.
import torch


def f(x, beta):
    return x * torch.sigmoid(beta * x)


def stencil(g, h):
    # f'(t) ~ (-g(2h) + 8 g(h) - 8 g(-h) + g(-2h)) / 12h
    return (8 * (g(h) - g(-h)) - (g(2 * h) - g(-2 * h))) / (12 * h)


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return f(x, beta)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        x, beta = ctx.saved_tensors
        grad_x = grad_beta = None
        h = 1e-3
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * stencil(lambda d: f(x + d, beta), h)
        if ctx.needs_input_grad[1]:
            grad_beta = (grad_output * stencil(lambda d: f(x, beta + d), h)).sum()
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
