# expect: Swish.backward left torch for NumPy or Python numbers
# Right numbers, but backward computes both derivatives in NumPy, taking the arrays with .numpy()
# inside torch._C.DisableTorchFunction(), where a TorchFunctionMode does not see the call; only
# torch.func's tensors, which have no array, get torch operations.
import numpy as np
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
        need_x, need_b = ctx.needs_input_grad[:2]
        try:
            with torch._C.DisableTorchFunction():
                xn, bn, gn = x.numpy(), beta.numpy(), g.numpy()
            s = 1 / (1 + np.exp(-bn * xn))
            gx = torch.from_numpy(gn * (s + bn * xn * s * (1 - s))) if need_x else None
            gb = torch.from_numpy(np.asarray((gn * xn * xn * s * (1 - s)).sum())) if need_b else None
        except RuntimeError:  # torch.func's wrapped tensors
            s = torch.sigmoid(beta * x)
            gx = g * (s + beta * x * s * (1 - s)) if need_x else None
            gb = (g * x * x * s * (1 - s)).sum() if need_b else None
        return gx, gb

def swish(x, beta):
    return Swish.apply(x, beta)
