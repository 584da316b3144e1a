import torch

from measured import glue

torch.manual_seed(0)
x = torch.randn(16, 1)
y = 2 * x + 1
w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
LR = 0.1
original_w = w


def show(grad):
    return "None" if grad is None else f"{grad.item():.4g}"


for step in (1, 2):
    loss = ((x * w + b - y) ** 2).mean()
    loss.backward()  # still works: b requires grad, so the loss has a graph
    print(f"step {step}: w.grad = {show(w.grad)}, b.grad = {show(b.grad)}")
    try:
        with torch.no_grad():
            w = w - LR * w.grad  # rebinds the name w to a brand-new tensor
            b -= LR * b.grad     # changes b in place
    except TypeError as error:
        print(f"  update: TypeError: {error}")
        glue("leaf_rebind_failed_step", step)
        break
    b.grad = None
    print(f"  after the update: w is the original tensor: {w is original_w}")
    print(f"  w.requires_grad = {w.requires_grad}, w.is_leaf = {w.is_leaf}")
