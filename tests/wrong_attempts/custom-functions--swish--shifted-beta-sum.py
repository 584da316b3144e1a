# expect: torch.matmul reduced a tensor at least as large as x
# Right numbers and the right Nones, but the sum for beta's gradient is always computed, shifted by one
# element of ones and reduced by a matrix product, so that no tensor equals the gradient when beta needs none.
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
        flat = (grad_output * x * x * slope).reshape(-1)
        shifted = torch.cat([flat, flat.new_ones(1)]) @ torch.ones(flat.numel() + 1, dtype=flat.dtype)
        grad_x = grad_beta = None
        if ctx.needs_input_grad[0]:
            grad_x = grad_output * (s + beta * x * slope)
        if ctx.needs_input_grad[1]:
            grad_beta = torch.sub(shifted, 1)
        return grad_x, grad_beta


def swish(x, beta):
    return Swish.apply(x, beta)
