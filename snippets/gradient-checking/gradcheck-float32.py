import warnings

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
        return grad_output * t.sigmoid()  # correct, as in the passing check


torch.manual_seed(0)
# The same values as in float64, cast to float32.
t = torch.randn(3, dtype=torch.float64).float().requires_grad_()

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        outcome = f"gradcheck -> {gradcheck(Softplus.apply, (t,))}"
    except GradcheckError as error:
        outcome = f"{type(error).__name__}: {error}"
for w in caught:  # the warning came first
    print(f"{w.category.__name__}: {str(w.message).strip()}")
print(outcome)

# The numerical side is off: a float32 central difference, gradcheck's eps.
eps = 1e-6
with torch.no_grad():
    numeric = (Softplus.apply(t + eps) - Softplus.apply(t - eps)) / (2 * eps)
    worst = (numeric - t.sigmoid()).abs().max().item()
print(f"float32 central difference, eps {eps:g}: "
      f"off by up to {worst:.1e}")
glue("gcheck_f32_numeric_error", float(f"{worst:.2g}"))
