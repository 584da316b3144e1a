# expect: not the number your second torch.autograd.grad call returned
# A real pair of calls whose result is dropped; the value returned comes from a table of the three
# cases, told apart by the name of f.
import math

import torch


def second_derivative(f, x):
    (first,) = torch.autograd.grad(f(x), x, create_graph=True)
    torch.autograd.grad(first, x)
    return {"cube": 18.0, "sin": -math.sin(0.5), "f": 7.0}[f.__name__]
