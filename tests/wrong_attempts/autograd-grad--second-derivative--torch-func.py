# expect: 2 × torch.autograd.grad (by torch.func)
# A ready-made transform instead of two calls of torch.autograd.grad: torch.func does the differentiating.
import torch
import torch.func


def second_derivative(f, x):
    return torch.func.grad(torch.func.grad(f))(x.detach())
