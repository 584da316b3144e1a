# expect: backward computed the gradient for beta although beta does not require grad
# Right numbers and the right Nones, but both gradients are computed every time; when both are
# needed, backward makes a few extra torch calls, so that skipping seems to save calls.
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
        grad_x = grad_output * (s + beta * x * slope)
        grad_beta = (grad_output * x * x * slope).sum()
        if all(ctx.needs_input_grad):
            for _ in range(4):
                grad_output.clone()  # padding
        return (grad_x if ctx.needs_input_grad[0] else None), (grad_beta if ctx.needs_input_grad[1] else None)


def swish(x, beta):
    return Swish.apply(x, beta)
