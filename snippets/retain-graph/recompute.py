import torch
import torch.nn as nn
import torch.nn.functional as F

from measured import glue

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(32, 8), torch.randn(32, 1)


def compute_loss():
    return F.mse_loss(model(x), y)  # a fresh graph on every call


def gradients():
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    return grads


def max_difference(a, b):
    return max((p - q).abs().max().item() for p, q in zip(a, b))


# Keeping the graph: the second backward reuses what the first one kept.
loss = compute_loss()
loss.backward(retain_graph=True)
first = gradients()
loss.backward()
kept = gradients()

# Recomputing: one more forward, a new graph, one backward.
compute_loss().backward()
recomputed = gradients()
print(f"kept graph, 2nd backward vs 1st:  max |difference| = "
      f"{max_difference(kept, first):g}")
difference = max_difference(recomputed, kept)
print(f"recomputed vs kept graph:         max |difference| = {difference:g}")
glue("rg_recompute_difference", difference)

# Once the parameters change, only recomputing still works.
loss = compute_loss()
loss.backward(retain_graph=True)
optimizer.step()  # updates the weights in place
model.zero_grad()
try:
    loss.backward()
except RuntimeError as error:
    print(f"kept graph after optimizer.step(): RuntimeError: {error}")
compute_loss().backward()
norm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
print(f"recomputed after optimizer.step(): gradient norm {norm:.4f}")
