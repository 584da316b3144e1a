import torch

x = torch.tensor(3.0, requires_grad=True)
unused = torch.tensor(1.0, requires_grad=True)  # f never uses it
f = x**2

try:
    torch.autograd.grad(f, [x, unused], retain_graph=True)
except RuntimeError as error:
    print(f"grad(f, [x, unused]): RuntimeError: {error}")

grads = torch.autograd.grad(f, [x, unused], allow_unused=True,
                            retain_graph=True)
print(f"allow_unused=True:                          {grads}")
grads = torch.autograd.grad(f, [x, unused], materialize_grads=True)  # allows unused too
print(f"materialize_grads=True:                     {grads}")
