# expect: pass create_graph=True to the first torch.autograd.grad call
# The usual first try: two gradient calls, the first one without create_graph.
import torch


def second_derivative(f, x):
    (first,) = torch.autograd.grad(f(x), x)
    (second,) = torch.autograd.grad(first, x)
    return second
