# expect: called backward(): it wrote into x.grad, even if it set it back to None
# backward() instead of torch.autograd.grad, with x.grad set back to None so that the end state looks clean.
import torch


def second_derivative(f, x):
    f(x).backward(create_graph=True)
    first = x.grad
    x.grad = None
    first.backward()
    second = x.grad.detach().clone()
    x.grad = None
    return second
