import torch
from torch.func import grad

from measured import glue

X = 3.0
glue("tf_x", X)


def cube(t):
    return t**3


# torch.func.grad turns a function into its derivative: a new function.
d_cube = grad(cube)
x = torch.tensor(X)  # a plain tensor: no requires_grad needed
print(f"grad(cube)(x)       = {d_cube(x).item():.1f}")
print(f"called again        = {d_cube(x).item():.1f}")
print(f"grad(grad(cube))(x) = {grad(grad(cube))(x).item():.1f}")
print(f"grad(grad(grad(cube)))(x) = {grad(grad(grad(cube)))(x).item():.1f}")
glue("tf_first", d_cube(x))
glue("tf_second", grad(grad(cube))(x))
glue("tf_third", grad(grad(grad(cube)))(x))

# The same leaf as in the autograd-grad chapter, three ways.
leaf = torch.tensor(X, requires_grad=True)
for _ in range(2):
    torch.autograd.grad(cube(leaf), leaf)  # returns, writes nothing
    grad(cube)(leaf)                       # returns, writes nothing
print(f"after 2 x autograd.grad and 2 x func.grad: leaf.grad = {leaf.grad}")
cube(leaf).backward()
cube(leaf).backward()
print(f"after 2 x backward():                      leaf.grad = "
      f"{leaf.grad.item():.1f}")
glue("tf_backward_twice", leaf.grad)

# On a leaf that requires grad, the derivative stays on the caller's graph,
# as autograd.grad's would with create_graph=True.
leaf = torch.tensor(X, requires_grad=True)
g = grad(cube)(leaf)
print(f"grad(cube)(leaf): requires_grad={g.requires_grad}, "
      f"has a grad_fn: {g.grad_fn is not None}")
g.backward()  # differentiates the derivative: 6x
print(f"g.backward():     leaf.grad = {leaf.grad.item():.1f}")
glue("tf_outer_second", leaf.grad)
g = grad(cube)(leaf.detach())
print(f"grad(cube)(leaf.detach()): requires_grad={g.requires_grad}")
