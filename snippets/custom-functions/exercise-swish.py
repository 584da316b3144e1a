"""Exercise: write swish(x, beta) = x * sigmoid(beta * x) as a custom autograd Function, with a
learnable scalar beta.

Fill in `Swish` and `swish`, then judge them:
    python -m exercise_judge custom-functions/swish exercise-swish.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.

The judge checks, for x of two shapes and two values of beta:
- the value, both gradients of swish(x, beta).sum(), and gradcheck in float64;
- a setup_context, which torch.func.grad needs;
- x and beta saved with ctx.save_for_backward, not kept on ctx or as copies: an in-place edit of
  either between forward and backward must make backward raise, and backward must compute with the
  values ctx.saved_tensors gives back, also after new values are written through .data;
- both derivatives written by backward itself in torch operations: no autograd pass, no
  forward-mode dual numbers, no complex step, no finite differences (sigmoid, exp, tanh and the
  like evaluated only at ±beta*x or ±beta*x/2; a difference quotient built from those values and
  constants, the judge does not see), no NumPy and no other thread inside it; the gradient for
  beta has shape ();
- for whichever of the two does not require grad, None from backward (ctx.needs_input_grad),
  without computing that gradient, and no operation returning more than 64 × x.numel() elements.
  Each count below is compared with the run where both require grad:
  - backward makes fewer torch calls, and every new tensor it makes is returned or goes, through
    later calls, into a returned one, not just into a comparison;
  - when x needs no gradient, its torch operations make at least x.numel() fewer elements, views
    not counted: the gradient's last step. The terms before it may be shared with beta's, and a
    term that beta's computation reads counts as beta's. No operation returns that gradient, even
    reordered, shifted, scaled, rounded to a lower precision or padded with other elements;
  - when beta needs none, every operation is elementwise, a view, or makes a new tensor from a
    shape (zeros_like, say): no reduction, matrix product, convolution or cumulative operation
    such as cumsum; and none returns x*x or x*x*s*(1-s) (s = sigmoid(beta*x)), even reordered,
    shifted, scaled or padded with other elements.
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
