import torch

from measured import glue

torch.manual_seed(0)
x = torch.randn(16, 1)
y = 2 * x + 1
w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
LR, STEPS = 0.1, 5
original_w = w
losses = []
glue("leaf_lr", LR)
glue("leaf_steps", STEPS)

for step in range(1, STEPS + 1):
    loss = ((x * w + b - y) ** 2).mean()
    losses.append(loss.item())
    loss.backward()
    with torch.no_grad():  # the update itself must not be recorded
        w -= LR * w.grad   # in place: the same leaf, still requiring grad
        b -= LR * b.grad
    w.grad = None
    b.grad = None
    print(f"step {step}: loss = {loss.item():.4f}, w = {w.item():.4f}")
with torch.no_grad():
    loss_after = ((x * w + b - y) ** 2).mean().item()
print(f"after {STEPS} updates: loss = {loss_after:.4f}")
print(f"w is the original tensor: {w is original_w}, "
      f"w.requires_grad = {w.requires_grad}, w.is_leaf = {w.is_leaf}")
glue("leaf_loss_first", round(losses[0], 4))
glue("leaf_loss_after", round(loss_after, 4))

# The same line without no_grad: autograd refuses to edit a leaf in place.
loss = ((x * w + b - y) ** 2).mean()
loss.backward()
try:
    w -= LR * w.grad
except RuntimeError as error:
    print(f"without no_grad: RuntimeError: {error}")
