import torch
from torch.autograd.functional import jacobian

from measured import glue


def f(x):
    return torch.stack([x[0] * x[1], x[1] ** 2, x[0] + 3 * x[2]])


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
J = jacobian(f, x)

# A one-hot v picks one row of J: the full J costs a backward per output.
rows = []
for i in range(3):
    x.grad = None
    f(x).backward(torch.eye(3)[i])
    rows.append(x.grad.clone())
    print(f"backward(e{i}): x.grad = {x.grad.tolist()}",
          f" J[{i}] = {J[i].tolist()}")
assert torch.equal(torch.stack(rows), J)
glue("so_rows_backwards", len(rows))

# v must have the output's shape.
try:
    f(x).backward(torch.ones(2))
except RuntimeError as error:
    print(f"{type(error).__name__}: {error}")
