import torch

from measured import glue

x = torch.tensor(3.0, requires_grad=True)

f = x**3  # PowBackward0 saves x
torch.autograd.grad(f, x)  # retain_graph defaults to False: the saved x is freed
try:
    torch.autograd.grad(f, x)
except RuntimeError as error:
    print(f"grad, then grad again:               RuntimeError: {str(error).split(' (')[0]} (…)")

f = x**3
torch.autograd.grad(f, x, create_graph=True)  # retain_graph not passed: it defaults to create_graph
(again,) = torch.autograd.grad(f, x)
print(f"grad(create_graph=True), then grad:  ran, {again.item():.1f}")
glue("ag_again", again)
