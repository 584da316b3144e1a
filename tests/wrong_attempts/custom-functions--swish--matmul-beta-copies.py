# expect: reduced a tensor at least as large as x
# Computes beta's gradient whatever needs_input_grad says, as n copies of it: a matmul whose result is as
# large as x (so no fewer elements) but whose every element sums n products; when beta needs none, the
# copies are added, times 0, to grad_x, so that they feed a returned tensor.
import torch


class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return x * torch.sigmoid(beta * x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, g):
        x, beta = ctx.saved_tensors
        s = torch.sigmoid(beta * x)
        slope = s * (1 - s)
        n = x.numel()
        # beta's gradient, computed whatever needs_input_grad says: a row of n copies of the sum
        xs = (g * x * slope).reshape(1, -1)
        S = xs @ x.reshape(-1, 1).expand(-1, n)
        gx = gb = None
        if ctx.needs_input_grad[0]:
            gx = g * (s + beta * x * slope) + 0 * S.reshape(x.shape)
        if ctx.needs_input_grad[1]:
            gb = S[0, 0]
        return gx, gb


def swish(x, beta):
    return Swish.apply(x, beta)
