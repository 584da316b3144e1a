import inspect

import torch
from torch.autograd import gradcheck

from measured import glue


class Softplus(torch.autograd.Function):
    """log(1 + e^t), with a hand-written backward: d/dt = sigmoid(t)."""

    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t.exp().log1p()

    @staticmethod
    def backward(ctx, grad_output):
        (t,) = ctx.saved_tensors
        return grad_output * t.sigmoid()  # chain rule: times grad_output


parameters = inspect.signature(gradcheck).parameters
defaults = {name: parameters[name].default
            for name in ("eps", "atol", "rtol", "fast_mode")}
print("gradcheck defaults:",
      ", ".join(f"{name}={value}" for name, value in defaults.items()))
for name in ("eps", "atol", "rtol"):
    glue(f"gcheck_default_{name}", defaults[name])

torch.manual_seed(0)
# float64, as gradcheck expects
t = torch.randn(3, dtype=torch.float64, requires_grad=True)
print("gradcheck(Softplus.apply, (t,)) ->", gradcheck(Softplus.apply, (t,)))
