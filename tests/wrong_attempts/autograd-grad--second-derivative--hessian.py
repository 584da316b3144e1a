# expect: recorded by torch.autograd.functional and differentiated by torch.autograd.functional
# Two calls of torch.autograd.grad that the judge could count, neither result used; the second
# derivative it returns comes from torch.autograd.functional.hessian.
import torch


def second_derivative(f, x):
    torch.autograd.grad(f(x), x, create_graph=True)
    torch.autograd.grad(f(x), x)
    return torch.autograd.functional.hessian(f, x)
