import torch
from torch import nn

from measured import glue

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(4, 3)).sum().backward()


def describe(grad):
    return "None" if grad is None else f"a tensor, sum of |entries| = {grad.abs().sum().item():.3g}"


print(f"{'after backward:':38}weight.grad is {describe(model.weight.grad)}")
optimizer.zero_grad()  # set_to_none=True is the default
print(f"{'after optimizer.zero_grad():':38}weight.grad is {describe(model.weight.grad)}")
print("every p.grad is None:", all(p.grad is None for p in model.parameters()))

# Your own code that reads p.grad meets None, not zeros ...
try:
    norm = sum(p.grad.norm() ** 2 for p in model.parameters()) ** 0.5
except AttributeError as error:
    print(f"own gradient norm: AttributeError: {error}")
grads = [p.grad for p in model.parameters() if p.grad is not None]  # ... so it must skip them
print("gradients left after skipping None:", len(grads))
# PyTorch's own readers skip None already.
clipped_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print("clip_grad_norm_ returns the norm:", clipped_norm.item())
glue("accum_clip_norm", clipped_norm)
before = model.weight.detach().clone()
optimizer.step()
print("optimizer.step() changed the weight:", not torch.equal(before, model.weight))

model(torch.randn(4, 3)).sum().backward()
optimizer.zero_grad(set_to_none=False)  # keep the tensors, fill them with zeros
print(f"{'after zero_grad(set_to_none=False):':38}weight.grad is {describe(model.weight.grad)}")
