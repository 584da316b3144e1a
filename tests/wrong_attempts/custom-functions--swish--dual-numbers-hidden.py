# expect: Swish.backward switched off torch's function layer
# Right numbers, but backward has forward-mode AD (dual numbers) compute both derivatives inside
# torch._C.DisableTorchFunction(), where a TorchFunctionMode sees no _make_dual.
import torch
import torch.autograd.forward_ad as fwAD

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
        grad_x = grad_beta = None
        with torch._C.DisableTorchFunction(), fwAD.dual_level():
            if ctx.needs_input_grad[0]:
                grad_x = g * fwAD.unpack_dual(f(fwAD.make_dual(x, torch.ones_like(x)), beta)).tangent
            if ctx.needs_input_grad[1]:
                grad_beta = (g * fwAD.unpack_dual(f(x, fwAD.make_dual(beta, torch.ones_like(beta)))).tangent).sum()
        return (None if grad_x is None else grad_x.clone()), (None if grad_beta is None else grad_beta.clone())

def swish(x, beta):
    return Swish.apply(x, beta)
