import torch
from torch.autograd.functional import jacobian

from measured import glue


def f(x):
    # three outputs that mix the inputs, so the Jacobian is not diagonal
    return torch.stack([x[0] * x[1], x[1] ** 2, x[0] + 3 * x[2]])


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = torch.tensor([1.0, 0.5, -2.0])

J = jacobian(f, x)  # d out_i / d x_j, one row per output
f(x).backward(v)    # one backward pass, weighted by v
print("J =", J.tolist())
print("v =", v.tolist())
print("v @ J    =", (v @ J).tolist())
print("x.grad   =", x.grad.tolist())
assert torch.equal(x.grad, v @ J)
print("x.grad equals v @ J:", torch.equal(x.grad, v @ J))

for i, value in enumerate(v.tolist()):
    glue(f"so_vjp_v{i}", value)
for j, value in enumerate(x.grad.tolist()):
    glue(f"so_vjp_grad{j}", value)
