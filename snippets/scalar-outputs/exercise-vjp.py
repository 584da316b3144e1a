"""Exercise: compute a vector-Jacobian product with one backward(v).

Fill in `vjp`, then judge it:
    python -m exercise_judge scalar-outputs/vjp exercise-vjp.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""

import torch


def vjp(f, x, v):
    """Return vᵀJ, where J is the Jacobian of f at x (J[i, j] = d f(x)[i] / d x[j]): a tensor of
    x's shape and dtype. f maps a 1-D tensor to a 1-D tensor; v has f(x)'s shape.

    Call f once and run one backward pass that starts from v (backward(v)); do not build J, and use
    neither torch.autograd.functional nor torch.func. x may or may not require grad, and may have been
    computed from other tensors (not a leaf). Leave the caller's tensors as they were: the values of
    x, whether it requires grad, its .grad (None, or a gradient from earlier), the .grad of the
    tensors x was computed from, and the graph that computed x (the caller may still run a backward
    pass through it)."""
    raise NotImplementedError("run f on a leaf copy of x, then backward(v)")


if __name__ == "__main__":
    def f(x):
        return torch.stack([x[0] * x[1], x[1] ** 2, x[0] + 3 * x[2]])

    x, v = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.5, -2.0])
    print("vjp:  ", vjp(f, x, v))
    print("v @ J:", v @ torch.autograd.functional.jacobian(f, x))
