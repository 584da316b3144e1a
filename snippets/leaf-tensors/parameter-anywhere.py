import torch
from torch import nn

w = torch.ones(2, requires_grad=True)
h = w * 3  # an intermediate result
with torch.no_grad():
    made_under_no_grad = nn.Parameter(torch.zeros(2))
    rebuilt_under_no_grad = nn.Parameter(w - 0.1)


def make():
    return nn.Parameter(torch.zeros(2))


with torch.no_grad():
    made_in_a_function = make()
from_h = nn.Parameter(h)

print(f"{'nn.Parameter(...)':40}{'requires_grad':15}is_leaf")
for label, p in [("created at top level", nn.Parameter(torch.zeros(2))),
                 ("created under no_grad", made_under_no_grad),
                 ("from w - 0.1, under no_grad", rebuilt_under_no_grad),
                 ("from a function called under no_grad", made_in_a_function),
                 ("from the intermediate h = w * 3", from_h)]:
    print(f"{label:40}{p.requires_grad!s:15}{p.is_leaf}")
print("the one from h shares h's storage:", from_h.data_ptr() == h.data_ptr(),
      "| has a grad_fn:", from_h.grad_fn is not None)

# A new Parameter is a new object: an older optimizer keeps the old one.
torch.manual_seed(0)
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
with torch.no_grad():
    model.weight = nn.Parameter(model.weight * 0.5)
print("optimizer holds the new model.weight:",
      any(p is model.weight for p in optimizer.param_groups[0]["params"]))
before = model.weight.detach().clone()
optimizer.zero_grad()
model(torch.randn(4, 2)).sum().backward()
optimizer.step()
changed = not torch.equal(before, model.weight)
print("after one training step, model.weight has a gradient:",
      model.weight.grad is not None, "| changed:", changed)
