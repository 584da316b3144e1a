import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
# Two optimizers, each over one part of the same model.
body_optimizer = torch.optim.SGD(model[0].parameters(), lr=0.1)
head_optimizer = torch.optim.Adam(model[2].parameters(), lr=1e-3)
x, y = torch.randn(16, 4), torch.randn(16, 1)


def loss_on(batch_x, batch_y):
    return nn.functional.mse_loss(model(batch_x), batch_y)


def state(p):
    return "None" if p.grad is None else "still there"


loss_on(x, y).backward()
head_grad_step1 = model[2].weight.grad.clone()
body_optimizer.zero_grad()  # clears model[0] only
after_one = {name: state(p) for name, p in model.named_parameters()}

# The next step's backward adds onto what the head kept from the last step.
x2, y2 = torch.randn(16, 4), torch.randn(16, 1)
loss_on(x2, y2).backward()
head_grad_mixed = model[2].weight.grad.clone()
model.zero_grad()  # clears every parameter of the model
after_all = {name: state(p) for name, p in model.named_parameters()}
loss_on(x2, y2).backward()
head_grad_step2 = model[2].weight.grad.clone()

print(f"{'parameter':10}{'body_optimizer.zero_grad()':28}model.zero_grad()")
for name in after_one:
    print(f"{name:10}{after_one[name]:28}{after_all[name]}")
print("head gradient in step 2 = step 1's + step 2's:",
      torch.allclose(head_grad_mixed, head_grad_step1 + head_grad_step2))
