"""Exercise: a second derivative with torch.autograd.grad.

Fill in `second_derivative`, then judge it:
    python -m exercise_judge autograd-grad/second-derivative exercise-second-derivative.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""

import torch


def second_derivative(f, x):
    """Return d²f/dx² at x, as a 0-dim tensor.

    `f` maps a 0-dim tensor to a 0-dim tensor (for example `lambda t: t**3`, or `torch.sin`),
    and its derivative still depends on x; `x` is a 0-dim floating-point tensor with
    requires_grad=True. Take both derivatives with your own torch.autograd.grad calls (the first
    with create_graph=True, the second of what the first returned), and leave x.grad alone: it
    must still be None afterwards.
    """
    raise NotImplementedError("differentiate f twice with torch.autograd.grad")


if __name__ == "__main__":
    x = torch.tensor(3.0, requires_grad=True)
    print(second_derivative(lambda t: t**3, x), x.grad)
