import torch
from torch import nn

from measured import glue

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
micro_batches = 2  # two micro-batches per step: .grad accumulates across them
data = [(torch.randn(32, 8), torch.randn(32, 1)) for _ in range(3 * micro_batches)]

# References: each micro-batch's own gradient for the first step, computed before
# training (the weights do not change between the two micro-batches of a step).
own_norms = [torch.autograd.grad(nn.functional.mse_loss(model(x), y) / micro_batches,
                                 model[0].weight)[0].norm().item()
             for x, y in data[:micro_batches]]

# One hook per weight, registered once, before the loop: it sees the gradient of
# each backward as it arrives, before it is added into .grad.
arriving, in_grad = {}, {}
handles = []
for name, p in model.named_parameters():
    if name.endswith("weight"):
        handles.append(p.register_hook(
            lambda grad, name=name: arriving.setdefault(name, []).append(grad.norm().item())))
        # Fires after .grad is updated: it sees the accumulated gradient.
        handles.append(p.register_post_accumulate_grad_hook(
            lambda p, name=name: in_grad.setdefault(name, []).append(p.grad.norm().item())))

for step in range(3):
    optimizer.zero_grad()
    for x, y in data[step * micro_batches:(step + 1) * micro_batches]:
        loss = nn.functional.mse_loss(model(x), y) / micro_batches
        loss.backward()
    optimizer.step()

for handle in handles:
    handle.remove()
print("per micro-batch gradient norm (register_hook):")
for name, norms in arriving.items():
    print(f"  {name:9}", " ".join(f"{n:.4f}" for n in norms))
print("norm of .grad after each backward (post-accumulate hook):")
for name, norms in in_grad.items():
    print(f"  {name:9}", " ".join(f"{n:.4f}" for n in norms))

print("0.weight, first step: register_hook values equal each micro-batch's own gradient norm:",
      arriving["0.weight"][:micro_batches] == own_norms)
glue("hooks_monitor_first", arriving["0.weight"][0])
glue("hooks_monitor_second", arriving["0.weight"][1])
glue("hooks_monitor_accumulated", in_grad["0.weight"][1])
