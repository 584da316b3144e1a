import copy

import torch
from torch import nn
from torch.func import functional_call, grad, replace_all_batch_norm_modules_, vmap

from measured import glue, roughly

GROUPS, GROUP = 3, 4
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1))
x, y = torch.randn(GROUPS * GROUP, 4), torch.randn(GROUPS * GROUP, 1)
params = {name: p.detach() for name, p in model.named_parameters()}
own_buffers = {name: b.clone() for name, b in model.named_buffers()}
print("buffers:", ", ".join(own_buffers))
replaced = copy.deepcopy(model)
replace_all_batch_norm_modules_(replaced)  # no running statistics left to update
print("after replace_all_batch_norm_modules_:", dict(replaced.named_buffers()))


def fresh_buffers():
    """A copy of the model's buffers, to pass to functional_call (BatchNorm updates it in place)."""
    return {name: b.clone() for name, b in model.named_buffers()}


def outcome(run):
    """'works', or the error's type and its first sentence."""
    try:
        run()
    except (RuntimeError, ValueError) as error:
        return f"{type(error).__name__}: {str(error).split('. ')[0].split(chr(10))[0]}"
    return "works"


def loss_of(module, with_buffers=False):
    """The mean squared error of `module` on a batch, as a function of its parameters (differentiated)
    and, when with_buffers, of its buffers (passed to functional_call, not differentiated)."""
    def loss(params, buffers, xs, ys):
        state = (params, buffers) if with_buffers else params
        return nn.functional.mse_loss(functional_call(module, state, (xs,)), ys)
    return loss


def of_one(loss):
    """The same loss of one sample: the module sees a batch of one."""
    return lambda params, buffers, xi, yi: loss(params, buffers, xi[None], yi[None])


# Per sample, training mode: BatchNorm would normalise each sample by its own statistics.
samples = (None, None, 0, 0)
print("per sample, training mode:")
print("  buffers captured:       ", outcome(
    lambda: vmap(grad(of_one(loss_of(model))), in_dims=samples)(params, None, x, y)))
print("  buffers passed in:      ", outcome(
    lambda: vmap(grad(of_one(loss_of(model, True))), in_dims=samples)(params, fresh_buffers(), x, y)))
print("  replace_all_batch_norm_modules_:", outcome(
    lambda: vmap(grad(of_one(loss_of(replaced))), in_dims=samples)(params, None, x, y)))
model.eval()
per_sample = vmap(grad(of_one(loss_of(model))), in_dims=samples)(params, None, x, y)
largest = 0.0
for i, (xi, yi) in enumerate(zip(x, y)):
    model.zero_grad()
    nn.functional.mse_loss(model(xi[None]), yi[None]).backward()
    largest = max(largest, max((per_sample[n][i] - p.grad).abs().max().item()
                               for n, p in model.named_parameters()))
print(f"  model.eval():            works; max |vmap - loop in eval mode| {roughly(largest)}")
glue("tf_bn_eval_difference", largest, varies=True)
model.train()

# Per group of GROUP samples, training mode: each group normalised by its own statistics.
xg, yg = x.view(GROUPS, GROUP, -1), y.view(GROUPS, GROUP, -1)
print(f"per group of {GROUP} ({GROUPS} groups), training mode:")
print("  buffers captured:       ", outcome(
    lambda: vmap(grad(loss_of(model)), in_dims=(None, None, 0, 0))(params, None, xg, yg)))
print("  buffers passed, shared: ", outcome(
    lambda: vmap(grad(loss_of(model, True)), in_dims=(None, None, 0, 0))(params, fresh_buffers(), xg, yg)))
copies = {name: b.expand(GROUPS, *b.shape).clone() for name, b in fresh_buffers().items()}
untouched = copy.deepcopy(copies)
with_copies = vmap(grad(loss_of(model, True)), in_dims=(None, 0, 0, 0))(params, copies, xg, yg)
print("  buffers passed, a copy per group: works; every copy updated:",
      all(not torch.equal(copies[n], untouched[n]) for n in copies),
      "| the model's own buffers untouched:",
      all(torch.equal(b, own_buffers[n]) for n, b in model.named_buffers()))
replaced_run = vmap(grad(loss_of(replaced)), in_dims=(None, None, 0, 0))(params, None, xg, yg)
print("  replace_all_batch_norm_modules_: works")
largest = {"copies": 0.0, "replaced": 0.0}
for i in range(GROUPS):
    model.zero_grad()
    nn.functional.mse_loss(model(xg[i]), yg[i]).backward()  # normalised by the group's statistics
    for way, per_group in (("copies", with_copies), ("replaced", replaced_run)):
        largest[way] = max(largest[way], max((per_group[n][i] - p.grad).abs().max().item()
                                             for n, p in model.named_parameters()))
print(f"  max |vmap - loop of backward() per group, training mode|: a copy per group "
      f"{roughly(largest['copies'])}, replaced {roughly(largest['replaced'])}")
glue("tf_bn_group_difference", max(largest.values()), varies=True)
glue("tf_bn_group", GROUP)
