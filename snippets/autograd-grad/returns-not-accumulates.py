import torch

from measured import glue

X = 3.0
glue("ag_x", X)

x = torch.tensor(X, requires_grad=True)
(g,) = torch.autograd.grad(x**3, x)  # a tuple: one gradient per input
print(f"grad(x**3, x) returned ({g.item():.1f},);  x.grad = {x.grad}")
glue("ag_first", g)
(g,) = torch.autograd.grad(x**3, x)  # again, on a fresh forward
print(f"called again:          ({g.item():.1f},);  x.grad = {x.grad}")

(x**3).backward()  # backward writes into .grad ...
print(f"(x**3).backward():               x.grad = {x.grad.item():.1f}")
(x**3).backward()  # ... and adds to what is there
print(f"(x**3).backward() again:         x.grad = {x.grad.item():.1f}")
glue("ag_backward_twice", x.grad)
