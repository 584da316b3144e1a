"""Reference solution: create_graph=True puts the first derivative on a graph of its own."""

import torch


def second_derivative(f, x):
    # Without create_graph=True the first derivative would be a plain number, with no
    # grad_fn, and the second call would raise.
    (first,) = torch.autograd.grad(f(x), x, create_graph=True)
    (second,) = torch.autograd.grad(first, x)
    return second


if __name__ == "__main__":
    x = torch.tensor(3.0, requires_grad=True)
    print(second_derivative(lambda t: t**3, x), x.grad)
