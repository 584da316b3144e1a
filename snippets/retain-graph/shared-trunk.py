import torch
import torch.nn as nn
import torch.nn.functional as F

from measured import glue, roughly

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(32, 64), nn.Tanh())  # shared by both tasks
classify = nn.Linear(64, 3)                          # head of task A
regress = nn.Linear(64, 1)                           # head of task B
parameters = [*trunk.parameters(), *classify.parameters(),
              *regress.parameters()]
x = torch.randn(16, 32)
labels, targets = torch.randint(0, 3, (16,)), torch.randn(16, 1)


def two_losses():
    features = trunk(x)  # one forward through the trunk, used by both heads
    return (F.cross_entropy(classify(features), labels),
            F.mse_loss(regress(features), targets))


def gradients():
    grads = [p.grad.clone() for p in parameters]
    for p in parameters:
        p.grad = None
    return grads


# Two backward calls: the first keeps the trunk's saved tensors for the second.
loss_a, loss_b = two_losses()
loss_a.backward(retain_graph=True)
loss_b.backward()
two_calls = gradients()

# One backward of the sum: the trunk is walked once, nothing needs keeping.
loss_a, loss_b = two_losses()
(loss_a + loss_b).backward()
one_call = gradients()

pairs = list(zip(two_calls, one_call))
difference = max((p - q).abs().max().item() for p, q in pairs)
print(f"two backward calls vs one of the sum: max |difference| = {roughly(difference)}")
close = all(torch.allclose(p, q) for p, q in pairs)
print(f"torch.allclose for every parameter: {close}")
glue("rg_trunk_difference", difference, varies=True)

# Without retain_graph the second loss cannot get back through the trunk.
loss_a, loss_b = two_losses()
loss_a.backward()
try:
    loss_b.backward()
except RuntimeError as error:
    short = str(error).split(" (")[0]
    print(f"loss_b.backward() without retain_graph: "
          f"RuntimeError: {short} (…)")
