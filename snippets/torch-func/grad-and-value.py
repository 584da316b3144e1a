import torch
from torch import nn
from torch.func import functional_call, grad, grad_and_value, vmap

from measured import glue

BATCH, CLIP = 8, 4.0
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
x, y = torch.randn(BATCH, 10), torch.randn(BATCH, 1)
params = {name: p.detach() for name, p in model.named_parameters()}
runs = []
model.register_forward_pre_hook(lambda module, args: runs.append(1))


def loss_of_one(params, xi, yi):
    """The loss of one sample, and its prediction as a passenger (aux)."""
    out = functional_call(model, params, (xi[None],))
    return nn.functional.mse_loss(out, yi[None]), out


per_sample = vmap(grad_and_value(loss_of_one, has_aux=True), in_dims=(None, 0, 0))
grads, (losses, predictions) = per_sample(params, x, y)
print(f"grad_and_value, has_aux=True: model runs {len(runs)}")
print(f"  gradient of 0.weight: {list(grads['0.weight'].shape)}, losses: {list(losses.shape)}, "
      f"predictions: {list(predictions.shape)}")
with torch.no_grad():
    plain = model(x)
    difference = max((losses - ((plain - y) ** 2)[:, 0]).abs().max().item(),
                     (predictions[:, 0] - plain).abs().max().item())
print(f"  losses and predictions vs the model run plainly: max |difference| {difference:.1e}")
glue("tf_aux_difference", difference)

runs.clear()
only_grads, only_predictions = vmap(grad(loss_of_one, has_aux=True), in_dims=(None, 0, 0))(params, x, y)
print(f"grad, has_aux=True: model runs {len(runs)}, returns (gradients, predictions)")

# The loss asked for apart, after the gradients: a second run of the model.
runs.clear()
vmap(grad(lambda *args: loss_of_one(*args)[0]), in_dims=(None, 0, 0))(params, x, y)
nn.functional.mse_loss(functional_call(model, params, (x,)), y, reduction="none")
print(f"grad, then the losses apart: model runs {len(runs)}")

# Using them: clip every sample's gradient to norm CLIP, average, write .grad, step.
norms = sum(g.flatten(start_dim=1).pow(2).sum(dim=1) for g in grads.values()).sqrt()
scale = (CLIP / norms).clamp(max=1.0)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
optimizer.zero_grad()
for name, p in model.named_parameters():
    g = grads[name]
    p.grad = (g * scale.view(-1, *[1] * (g.dim() - 1))).mean(dim=0)
before = [p.detach().clone() for p in model.parameters()]
optimizer.step()
clipped = norms * scale
print(f"clipped {int((scale < 1).sum())} of {BATCH} samples to norm {CLIP:g}; "
      f"largest norm before {norms.max().item():.2f}, after {clipped.max().item():.2f}")
print("optimizer.step() moved every parameter:",
      all(not torch.equal(b, p) for b, p in zip(before, model.parameters())))
glue("tf_aux_batch", BATCH)
glue("tf_clip", CLIP)
glue("tf_clipped", int((scale < 1).sum()))
