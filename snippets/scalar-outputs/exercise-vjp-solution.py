"""Reference solution: backward(v) on a fresh leaf that shares x's values."""

import torch


def vjp(f, x, v):
    # A new leaf: it requires grad whatever x does, and its .grad starts as None, so
    # backward neither fails on an x without requires_grad nor adds into the caller's x.grad.
    leaf = x.detach().requires_grad_()
    f(leaf).backward(v)  # v says how much each output counts: the gradient of (v * f(leaf)).sum()
    return leaf.grad


if __name__ == "__main__":
    def f(x):
        return torch.stack([x[0] * x[1], x[1] ** 2, x[0] + 3 * x[2]])

    x, v = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 0.5, -2.0])
    print("vjp:  ", vjp(f, x, v))
    print("v @ J:", v @ torch.autograd.functional.jacobian(f, x))
