import re

import torch

from measured import glue

torch.manual_seed(0)
x0 = torch.randn(3)
q = torch.randn(3, requires_grad=True)


def grad_of(build):
    x = x0.clone().requires_grad_()
    try:
        build(x).backward()
        return x.grad
    except RuntimeError as error:
        names = re.search(r"output \d+ of \w+, is at version \d+", str(error))
        return f"RuntimeError: … {names.group()} …"


def sigmoid_inplace(x):
    y = x.sigmoid()
    y.add_(1)  # edits the tensor SigmoidBackward0 saved
    return (y * y).sum()


def sigmoid_out_of_place(x):
    y = x.sigmoid()
    y = y + 1  # a new tensor; the saved one is untouched
    return (y * y).sum()


def sigmoid_clone(x):
    y = x.sigmoid().clone()  # the clone is edited, the saved original is not
    y.add_(1)
    return (y * y).sum()


def mul_inplace(x):
    a = x.clone()
    c = a * q
    a.add_(1)  # edits the tensor MulBackward0 saved
    return (c + a).sum()


def mul_out_of_place(x):
    a = x.clone()
    c = a * q
    a = a + 1
    return (c + a).sum()


def mul_clone(x):
    a = x.clone()
    c = a.clone() * q  # MulBackward0 saves the clone
    a.add_(1)
    return (c + a).sum()


FIXES = ("in place", "out of place", "clone")
CASES = {
    "sigmoid output": [sigmoid_inplace, sigmoid_out_of_place, sigmoid_clone],
    "multiplication input": [mul_inplace, mul_out_of_place, mul_clone],
}
worst = 0.0
for name, versions in CASES.items():
    print(name)
    grads = [grad_of(build) for build in versions]
    for fix, grad in zip(FIXES, grads):
        if isinstance(grad, str):
            print(f"  {fix:14}{grad}")
        else:
            shown = [round(g, 4) for g in grad.tolist()]
            print(f"  {fix:14}x.grad = {shown}")
    worst = max(worst, (grads[1] - grads[2]).abs().max().item())
print(f"largest difference between the two fixes: {worst:g}")
glue("inplace_fix_difference", worst)
