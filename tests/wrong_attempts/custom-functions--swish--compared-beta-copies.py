# expect: reduced a tensor at least as large as x
# Computes beta's gradient whatever needs_input_grad says, as n copies of it (a contraction whose
# result is as large as x, but each of whose elements sums n products: a reduction all the same), and
# only compares it when beta needs none.
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
        gxs = g * x * slope
        n = x.numel()
        # beta's gradient, computed whatever needs_input_grad says: n copies of the sum, so no "reduction"
        vec = torch.matmul(x.reshape(-1).expand(n, n), gxs.reshape(-1))
        torch.equal(vec, vec)  # a read, so the vector is not "unread"
        gx = gb = None
        if ctx.needs_input_grad[0]:
            gx = g * s + beta * gxs
        if ctx.needs_input_grad[1]:
            gb = vec[0]
        return gx, gb


def swish(x, beta):
    return Swish.apply(x, beta)
