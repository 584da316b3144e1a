# expect: Swish.backward switched off torch's function layer
# Right numbers, but backward takes both derivatives by the complex step, Im f(x + ih) / h, inside
# torch._C.DisableTorchFunction(), where a TorchFunctionMode sees nothing; one visible .clone() per
# gradient keeps the call count dropping when one is skipped.
import torch

def f(x, beta):
    return x * torch.sigmoid(beta * x)

class Swish(torch.autograd.Function):
    @staticmethod
    def forward(x, beta):
        return f(x, beta)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, g):
        x, beta = ctx.saved_tensors
        h = 1e-30
        grad_x = grad_beta = None
        with torch._C.DisableTorchFunction():
            if ctx.needs_input_grad[0]:
                grad_x = g * f(x + 1j * h, beta).imag / h
            if ctx.needs_input_grad[1]:
                grad_beta = (g * f(x, beta + 1j * h).imag / h).sum()
        # one visible call per gradient computed, so that the call count drops when one is skipped
        return (None if grad_x is None else grad_x.clone()), (None if grad_beta is None else grad_beta.clone())

def swish(x, beta):
    return Swish.apply(x, beta)
