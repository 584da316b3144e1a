import torch
from torch.autograd import gradcheck
from torch.autograd.gradcheck import GradcheckError

from measured import glue


class Softplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t.exp().log1p()

    @staticmethod
    def backward(ctx, grad_output):
        (t,) = ctx.saved_tensors
        return t.sigmoid()  # the bug: forgot to multiply by grad_output


torch.manual_seed(0)
t = torch.randn(3, dtype=torch.float64, requires_grad=True)

# With a .sum() loss, grad_output is all ones, and the bug is invisible.
Softplus.apply(t).sum().backward()
print("after .sum().backward(): t.grad equals sigmoid(t):",
      torch.equal(t.grad, t.detach().sigmoid()))

try:
    gradcheck(Softplus.apply, (t,))
except GradcheckError as error:  # a subclass of RuntimeError
    print(f"{type(error).__name__}: {error}")
glue("gcheck_bug_n", t.numel())
