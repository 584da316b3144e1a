import torch

from measured import glue

x = torch.tensor(3.0, requires_grad=True)
f = x**3
(d1,) = torch.autograd.grad(f, x, create_graph=True)  # records this backward
print(f"first:  3x^2 = {d1.item():.1f}, requires_grad={d1.requires_grad}, "
      f"grad_fn={type(d1.grad_fn).__name__}")
(d2,) = torch.autograd.grad(d1, x, create_graph=True)
print(f"second: 6x   = {d2.item():.1f}")
(d3,) = torch.autograd.grad(d2, x)
print(f"third:  6    = {d3.item():.1f}")
glue("ag_second", d2)
glue("ag_third", d3)

# Without create_graph the first derivative is a plain number, with no graph
(d1,) = torch.autograd.grad(x**3, x)
print(f"without create_graph: requires_grad={d1.requires_grad}, "
      f"grad_fn={d1.grad_fn}")
try:
    torch.autograd.grad(d1, x)
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# The derivative of 3 * x is the constant 3, computed from nothing that requires grad:
# create_graph=True has nothing to record
(d1,) = torch.autograd.grad(3 * x, x, create_graph=True)
print(f"3x, create_graph=True: requires_grad={d1.requires_grad}, "
      f"grad_fn={d1.grad_fn}")
