import statistics
import time

import torch
from torch import nn
from torch.func import functional_call, grad, vmap

from measured import TIMING, glue, roughly

BATCH, REPEATS = 64, 7
THREADS = 1  # one thread: less disturbed by whatever else the machine runs
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
x, y = torch.randn(BATCH, 10), torch.randn(BATCH, 1)
glue("tf_ps_batch", BATCH)
# The parameters as a dict of plain tensors: torch.func differentiates
# with respect to arguments, not to whatever requires grad.
params = {name: p.detach() for name, p in model.named_parameters()}


def loss_of_one(params, xi, yi):
    """The loss of one sample, as a function of the parameters."""
    out = functional_call(model, params, (xi[None],))  # a batch of one
    return nn.functional.mse_loss(out, yi[None])


def with_vmap():
    # grad differentiates argument 0 (params); vmap maps over the samples.
    return vmap(grad(loss_of_one), in_dims=(None, 0, 0))(params, x, y)


def with_loop():
    rows = {name: [] for name in params}
    for xi, yi in zip(x, y):
        model.zero_grad()
        # The model called directly: the loop pays no functional_call overhead.
        nn.functional.mse_loss(model(xi[None]), yi[None]).backward()
        for name, p in model.named_parameters():
            rows[name].append(p.grad.clone())
    model.zero_grad()
    return {name: torch.stack(found) for name, found in rows.items()}


fast, slow = with_vmap(), with_loop()
largest = 0.0
for name in params:
    difference = (fast[name] - slow[name]).abs().max().item()
    largest = max(largest, difference)
    print(f"{name:9} per-sample shape {str(list(fast[name].shape)):14} "
          f"max |vmap - loop| {roughly(difference)}")
glue("tf_ps_largest_difference", largest, varies=True)
glue("tf_ps_largest_entry", max(g.abs().max().item() for g in slow.values()))

# Nothing was written into the model by the vmap version.
model.zero_grad()
with_vmap()
print("after vmap(grad(...)): every p.grad is None:",
      all(p.grad is None for p in model.parameters()))

# The mean of the per-sample gradients is the batch gradient.
nn.functional.mse_loss(model(x), y).backward()
mean_difference = max((fast[name].mean(0) - p.grad).abs().max().item()
                      for name, p in model.named_parameters())
print(f"mean over samples vs batch backward(): max |difference| "
      f"{roughly(mean_difference)}")
glue("tf_ps_mean_difference", mean_difference, varies=True)
model.zero_grad()

threads = torch.get_num_threads()
torch.set_num_threads(THREADS)
times = {"vmap": [], "loop": []}
for _ in range(REPEATS):  # interleaved, so that a slow moment hits both
    for name, run in (("vmap", with_vmap), ("loop", with_loop)):
        start = time.perf_counter()
        run()
        times[name].append((time.perf_counter() - start) * 1e3)
vmap_ms, loop_ms = (statistics.median(times[n]) for n in ("vmap", "loop"))
print(f"{TIMING} median of {REPEATS}: vmap {vmap_ms:.3g} ms, "
      f"loop {loop_ms:.3g} ms, loop / vmap {loop_ms / vmap_ms:.1f}")
glue("tf_ps_speedup", loop_ms / vmap_ms, varies=True)
torch.set_num_threads(threads)
