# expect: differentiated by torch.autograd.functional, not both by torch.autograd.grad calls
# The first derivative comes from the reader's own torch.autograd.grad(create_graph=True), but
# torch.autograd.functional.jacobian differentiates it.
import torch


def second_derivative(f, x):
    def first(t):
        return torch.autograd.grad(f(t), t, create_graph=True)[0]

    first(x)
    return torch.autograd.functional.jacobian(first, x)
