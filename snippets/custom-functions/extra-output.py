import torch
import torch.nn.functional as F
from torch.autograd import gradcheck, gradgradcheck
from torch.autograd.gradcheck import GradcheckError


class SiLUSaved(torch.autograd.Function):
    """x * sigmoid(x); forward computes sigmoid(x) and saves it: a tensor without a graph."""

    @staticmethod
    def forward(ctx, x):
        s = torch.sigmoid(x)
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx, grad_y):
        x, s = ctx.saved_tensors
        return grad_y * s * (1 + x * (1 - s))


class SiLUExtraOutput(torch.autograd.Function):
    """The same, with sigmoid(x) returned as a second output: saved as an output, it is on the graph."""

    @staticmethod
    def forward(x):
        s = torch.sigmoid(x)
        return x * s, s

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        _, s = output
        ctx.save_for_backward(x, s)

    @staticmethod
    def backward(ctx, grad_y, grad_s):
        x, s = ctx.saved_tensors
        slope = s * (1 - s)  # sigmoid'(x)
        # grad_s is zeros when nobody used s; in the backward of this backward it is not.
        return grad_y * (s + x * slope) + grad_s * slope


class SiLUExtraOutputNoTerm(SiLUExtraOutput):
    """The same, but backward ignores the gradient of the extra output."""

    @staticmethod
    def backward(ctx, grad_y, grad_s):
        x, s = ctx.saved_tensors
        return grad_y * (s + x * s * (1 - s))


def first_output(function):
    """What callers see: silu(x) returns the first output only."""
    return lambda x: function.apply(x)[0]


torch.manual_seed(0)
x = torch.randn(4, dtype=torch.float64, requires_grad=True)
plain = x.detach().requires_grad_()
(first,) = torch.autograd.grad(F.silu(plain).sum(), plain, create_graph=True)
(true_second,) = torch.autograd.grad(first.sum(), plain)
print("built-in silu: second derivative", true_second)
for name, silu in (("SiLUSaved", SiLUSaved.apply), ("SiLUExtraOutput", first_output(SiLUExtraOutput)),
                   ("SiLUExtraOutputNoTerm", first_output(SiLUExtraOutputNoTerm))):
    (first,) = torch.autograd.grad(silu(x).sum(), x, create_graph=True)
    (second,) = torch.autograd.grad(first.sum(), x)
    try:
        verdict = gradgradcheck(silu, (x,))
    except GradcheckError as error:
        verdict = f"GradcheckError ({str(error).splitlines()[0].rstrip(',')})"
    print(f"{name}: gradcheck {gradcheck(silu, (x,))}; second derivative right:",
          f"{torch.allclose(second, true_second)}; gradgradcheck {verdict}")
