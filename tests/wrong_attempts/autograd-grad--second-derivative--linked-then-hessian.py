# expect: not the number your second torch.autograd.grad call returned
# A real pair of calls (the first with create_graph=True, the second of what it returned), whose
# result is dropped: the value returned comes from torch.autograd.functional.hessian.
import torch


def second_derivative(f, x):
    (first,) = torch.autograd.grad(f(x), x, create_graph=True)
    torch.autograd.grad(first, x)
    return torch.autograd.functional.hessian(f, x)
