import torch

from measured import glue

LR = 0.1
glue("inplace_leaf_lr", LR)

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
try:
    w.add_(1)  # a leaf that requires grad: autograd refuses to record this
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# How the default optimizers update parameters: in place, not recorded.
(w ** 2).sum().backward()
with torch.no_grad():
    w -= LR * w.grad
print("after w -= lr * w.grad under no_grad:")
print(f"  w = {[round(v, 4) for v in w.tolist()]}, "
      f"w._version = {w._version}, w.is_leaf = {w.is_leaf}")
glue("inplace_leaf_updated", round(w[0].item(), 4))

# no_grad stops the recording, not the version counter.
loss = (w ** 2).sum()  # PowBackward0 saves w
with torch.no_grad():
    w -= LR * w.grad  # a step between this forward and its backward
try:
    loss.backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")

# A fused step writes below autograd: the counter stays, the stale graph runs.
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
optimizer = torch.optim.SGD([w], lr=LR, fused=True)
(w ** 2).sum().backward()
loss = (w ** 2).sum()  # PowBackward0 saves w = [1, 2, 3]: its gradient is [2, 4, 6]
version = w._version
optimizer.step()
w.grad = None
loss.backward()
print(f"SGD(fused=True).step(): w = {[round(v, 4) for v in w.tolist()]}, w._version {version} -> {w._version}; "
      f"loss.backward() ran: w.grad = {[round(v, 4) for v in w.grad.tolist()]}")
