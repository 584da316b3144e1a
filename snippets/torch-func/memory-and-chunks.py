import weakref

import torch
from torch import nn
from torch.func import functional_call, grad, vmap
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from measured import glue

BATCH, MIB = 64, 2**20
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                      nn.Linear(256, 10))
x, y = torch.randn(BATCH, 256), torch.randn(BATCH, 10)
params = {name: p.detach() for name, p in model.named_parameters()}
runs = []
model.register_forward_pre_hook(lambda module, args: runs.append(1))


class LiveBytes(TorchDispatchMode):
    """The bytes of the storages that operations create inside the block, alive at once: now and
    at the peak. A storage counts until the last tensor on it is freed."""

    def __init__(self):
        super().__init__()
        self.now = self.peak = 0
        self.tensors = {}  # storage address -> [bytes, tensors alive on it]

    def _freed(self, address):
        entry = self.tensors[address]
        entry[1] -= 1
        if entry[1] == 0:
            self.now -= entry[0]
            del self.tensors[address]

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                storage = t.untyped_storage()
                address = storage.data_ptr()
                if address not in self.tensors:
                    self.tensors[address] = [storage.nbytes(), 0]
                    self.now += storage.nbytes()
                    self.peak = max(self.peak, self.now)
                self.tensors[address][1] += 1
                weakref.finalize(t, self._freed, address)
        return out


def loss_of_one(params, xi, yi):
    return nn.functional.mse_loss(functional_call(model, params, (xi[None],)), yi[None])


def norm_of_one(params, xi, yi):
    """Reduced inside the mapped function: one number per sample leaves it."""
    grads = grad(loss_of_one)(params, xi, yi)
    return sum(g.pow(2).sum() for g in grads.values()).sqrt()


def with_loop():
    """One backward() per sample, keeping each sample's norm: one gradient alive at a time."""
    norms = []
    for xi, yi in zip(x, y):
        model.zero_grad()
        nn.functional.mse_loss(model(xi[None]), yi[None]).backward()
        norms.append(sum(p.grad.pow(2).sum() for p in model.parameters()).sqrt())
    return torch.stack(norms)


def measured(run):
    runs.clear()
    with LiveBytes() as live:
        result = run()
    kept = sum(t.nbytes for t in tree_flatten(result)[0] if isinstance(t, torch.Tensor))
    return len(runs), kept / MIB, live.peak / MIB


parameters = sum(p.nbytes for p in params.values()) / MIB
print(f"parameters {parameters:.2f} MiB, batch of {BATCH}")
print(f"{'':36} {'model runs':>10} {'result MiB':>11} {'peak MiB':>9}")
found = {}
for label, run in [
        ("backward() loop, norms", with_loop),
        ("vmap(grad(...))", lambda: vmap(grad(loss_of_one), in_dims=(None, 0, 0))(params, x, y)),
        ("vmap(grad(...)), chunk_size=16",
         lambda: vmap(grad(loss_of_one), in_dims=(None, 0, 0), chunk_size=16)(params, x, y)),
        ("vmap(norm_of_one)", lambda: vmap(norm_of_one, in_dims=(None, 0, 0))(params, x, y)),
        ("vmap(norm_of_one), chunk_size=16",
         lambda: vmap(norm_of_one, in_dims=(None, 0, 0), chunk_size=16)(params, x, y)),
        ("vmap(norm_of_one), chunk_size=4",
         lambda: vmap(norm_of_one, in_dims=(None, 0, 0), chunk_size=4)(params, x, y))]:
    found[label] = measured(run)
    n, kept, peak = found[label]
    print(f"{label:36} {n:>10} {kept:>11.2f} {peak:>9.2f}")
model.zero_grad()
glue("tf_mem_batch", BATCH)
glue("tf_mem_parameters_mib", parameters)
glue("tf_mem_loop_peak_mib", found["backward() loop, norms"][2])
glue("tf_mem_result_mib", found["vmap(grad(...))"][1])
glue("tf_mem_vmap_peak_mib", found["vmap(grad(...))"][2])
glue("tf_mem_chunked_peak_mib", found["vmap(grad(...)), chunk_size=16"][2])
glue("tf_mem_chunked_runs", found["vmap(grad(...)), chunk_size=16"][0])
glue("tf_mem_norm_peak_mib", found["vmap(norm_of_one)"][2])
glue("tf_mem_norm_16_peak_mib", found["vmap(norm_of_one), chunk_size=16"][2])
glue("tf_mem_norm_4_peak_mib", found["vmap(norm_of_one), chunk_size=4"][2])
