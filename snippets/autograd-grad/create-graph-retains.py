import torch

from measured import glue

x = torch.tensor(3.0, requires_grad=True)

f = x**3  # PowBackward0 saves x
torch.autograd.grad(f, x)  # retain_graph defaults to False: x is freed
try:
    torch.autograd.grad(f, x)
except RuntimeError as error:
    short = str(error).split(" (")[0]
    print(f"grad, then grad again:               RuntimeError: {short} (…)")
try:
    f.backward()  # a backward() after the grad call needs the same graph
except RuntimeError as error:
    short = str(error).split(" (")[0]
    print(f"grad, then backward():               RuntimeError: {short} (…)")

f = x**3
# retain_graph is not passed: it defaults to the value of create_graph
torch.autograd.grad(f, x, create_graph=True)
(again,) = torch.autograd.grad(f, x)
print(f"grad(create_graph=True), then grad:  ran, {again.item():.1f}")
glue("ag_again", again)

# Differentiating the derivative is a backward pass too, without retain_graph:
# the derivative of sin(exp(x)) goes back through the forward graph and frees it
f = x.exp().sin()
(first,) = torch.autograd.grad(f, x, create_graph=True)
torch.autograd.grad(first, x)
try:
    torch.autograd.grad(f, x)
except RuntimeError as error:
    short = str(error).split(" (")[0]
    print(f"grad(create_graph=True), then grad of the derivative, then grad: "
          f"RuntimeError: {short} (…)")
