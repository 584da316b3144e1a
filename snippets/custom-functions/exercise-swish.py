"""Exercise: write swish(x, beta) = x * sigmoid(beta * x) as a custom autograd Function, with a
learnable scalar beta.

Fill in `Swish` and `swish`, then judge them:
    python -m exercise_judge custom-functions/swish exercise-swish.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.

The judge wants, for x of two shapes and two values of beta: the right value and gradients for x and
beta (gradcheck in float64), and the method: the setup_context style (torch.func.grad accepts it), x
and beta kept with ctx.save_for_backward (an in-place edit of either before backward must raise), a
backward that computes with the values ctx.saved_tensors gives back and writes both derivatives
itself in torch operations (no autograd pass in reverse or forward mode, no dual numbers, no complex
step, no NumPy inside it, and no other thread started), a gradient for beta of shape () like
beta's, and backward returning None for an input that does not require grad (ctx.needs_input_grad),
without computing that gradient: fewer torch calls; when x needs no gradient, at least three fewer
operations as large as x (beta*x*s*(1-s), adding s, multiplying by grad_output) and no tensor equal
to x's gradient, shifted or scaled or not; when beta needs none, no reduction of a tensor as large
as x, and no tensor equal to x*x or to x*x*s*(1-s), shifted or scaled or not.
"""

import torch
from torch.autograd import gradcheck


class Swish(torch.autograd.Function):
    """(x, beta) ↦ x * sigmoid(beta * x); x any shape, beta a 0-dim tensor."""

    @staticmethod
    def forward(x, beta):
        raise NotImplementedError("compute x * sigmoid(beta * x)")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("save what backward needs with ctx.save_for_backward")

    @staticmethod
    def backward(ctx, grad_output):
        """Return (gradient for x, gradient for beta), each shaped like its input, or None for an
        input that does not require grad (ctx.needs_input_grad)."""
        raise NotImplementedError("return the gradients for x and beta")


def swish(x, beta):
    """x * sigmoid(beta * x) through Swish: call it with Swish.apply."""
    raise NotImplementedError("apply the Function")


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(5, dtype=torch.float64, requires_grad=True)
    beta = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    print("gradcheck:", gradcheck(swish, (x, beta)))
