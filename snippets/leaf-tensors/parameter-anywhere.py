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

print(f"{'nn.Parameter(...)':40}{'requires_grad':15}is_leaf")
for label, p in [("created at top level", nn.Parameter(torch.zeros(2))),
                 ("created under no_grad", made_under_no_grad),
                 ("from w - 0.1, under no_grad", rebuilt_under_no_grad),
                 ("from the non-leaf h = w * 3", nn.Parameter(h)),
                 ("from a function called under no_grad", made_in_a_function)]:
    print(f"{label:40}{p.requires_grad!s:15}{p.is_leaf}")

# A new Parameter is a new object: an optimizer built earlier keeps updating the old one.
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
with torch.no_grad():
    model.weight = nn.Parameter(model.weight * 0.5)
print("optimizer still holds model.weight:",
      any(p is model.weight for p in optimizer.param_groups[0]["params"]))
