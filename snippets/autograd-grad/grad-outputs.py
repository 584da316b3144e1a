import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2  # three outputs: the Jacobian is diag(2x)

try:
    torch.autograd.grad(y, x, retain_graph=True)
except RuntimeError as error:
    print(f"grad(y, x): RuntimeError: {error}")

ones = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), retain_graph=True)[0]
total = torch.autograd.grad(y.sum(), x, retain_graph=True)[0]
print(f"grad_outputs=ones_like(y): {ones.tolist()}   grad(y.sum(), x): {total.tolist()}")
v = torch.tensor([0.0, 1.0, 0.0])  # weights the outputs: v @ Jacobian
print(f"grad_outputs=v={v.tolist()}: {torch.autograd.grad(y, x, grad_outputs=v)[0].tolist()}")
