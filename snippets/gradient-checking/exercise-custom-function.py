"""Exercise: write a custom autograd Function for x³, and check its backward with gradcheck.

forward keeps x with ctx.save_for_backward; backward reads it from ctx.saved_tensors and writes
the derivative out by hand, from that x (no autograd inside backward, in reverse or forward mode,
and no numerical differentiation such as the complex-step method).

Fill in `Cube` and `cube`, then judge them:
    python -m exercise_judge gradient-checking/custom-function exercise-custom-function.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""

import torch
from torch.autograd import gradcheck


class Cube(torch.autograd.Function):
    """x ↦ x³, elementwise, with a hand-written backward."""

    @staticmethod
    def forward(ctx, x):
        """Return x³. Save with ctx.save_for_backward whatever backward will need."""
        raise NotImplementedError("compute x ** 3 and save x for backward")

    @staticmethod
    def backward(ctx, grad_output):
        """Given grad_output, the gradient of the final result with respect to Cube's output, return
        the gradient with respect to x (same shape as x): the chain rule, with d(x³)/dx = 3x², written out."""
        raise NotImplementedError("return the gradient with respect to x")


def cube(x):
    """x³ through Cube: call it with Cube.apply, never Cube.forward directly."""
    raise NotImplementedError("apply the Function")


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    cube(x).sum().backward()
    print("x.grad == 3x²:", torch.allclose(x.grad, 3 * x.detach() ** 2))
    print("gradcheck:", gradcheck(cube, (x,)))
