import torch
from torch import nn

from measured import glue

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(4, 3)).sum().backward()


def show(when):
    grad = model.weight.grad
    if grad is None:
        state = "None"
    else:
        state = f"a tensor, sum of |entries| {grad.abs().sum():.3g}"
    print(f"{when:29}-> weight.grad: {state}")


show("backward()")
optimizer.zero_grad()  # set_to_none=True is the default
show("optimizer.zero_grad()")
all_none = all(p.grad is None for p in model.parameters())
print("every p.grad is None:", all_none)

# Your own code that reads p.grad meets None, not zeros ...
try:
    norm = sum(p.grad.norm() ** 2 for p in model.parameters()) ** 0.5
except AttributeError as error:
    print(f"own gradient norm: AttributeError: {error}")
# ... so it must skip them.
grads = [p.grad for p in model.parameters() if p.grad is not None]
print("gradients left after skipping None:", len(grads))
# clip_grad_norm_ and the optimizers skip None already.
clipped_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print("clip_grad_norm_ returns the norm:", clipped_norm.item())
glue("accum_clip_norm", clipped_norm)
before = model.weight.detach().clone()
optimizer.step()
changed = not torch.equal(before, model.weight)
print("optimizer.step() changed the weight:", changed)

model(torch.randn(4, 3)).sum().backward()
optimizer.zero_grad(set_to_none=False)  # keep the tensors, fill with zeros
show("zero_grad(set_to_none=False)")
