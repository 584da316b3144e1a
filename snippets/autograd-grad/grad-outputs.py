import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2  # three outputs: the Jacobian is diag(2x)

try:
    torch.autograd.grad(y, x, retain_graph=True)
except RuntimeError as error:
    print(f"grad(y, x): RuntimeError: {error}")

ones = torch.ones_like(y)
(weighted,) = torch.autograd.grad(y, x, grad_outputs=ones, retain_graph=True)
(summed,) = torch.autograd.grad(y.sum(), x, retain_graph=True)
print(f"grad_outputs=ones_like(y):  {weighted.tolist()}")
print(f"grad(y.sum(), x):           {summed.tolist()}")
v = torch.tensor([0.0, 1.0, 0.0])  # a weight per output: computes v @ J
(row,) = torch.autograd.grad(y, x, grad_outputs=v)
print(f"grad_outputs=v, v={v.tolist()}: {row.tolist()}")
