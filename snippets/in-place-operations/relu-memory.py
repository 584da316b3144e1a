import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from measured import glue, saved_tensors

MiB = 2**20
BATCH, WIDTH, LAYERS = 512, 1024, 4


def storages(tree):
    return [t.untyped_storage() for t in tree_leaves(tree)
            if isinstance(t, torch.Tensor)]


class Allocations(TorchDispatchMode):
    """Sees every operation below autograd. Adds up the bytes of each new
    storage an operation creates, and tracks the peak of those still alive
    (through weak references, so that it keeps none of them alive)."""

    def __init__(self):
        super().__init__()
        self.allocated = self.peak = 0
        self.live = {}

    def live_bytes(self):
        self.live = {ptr: (ref, size) for ptr, (ref, size) in self.live.items()
                     if not ref.expired()}
        return sum(size for _, size in self.live.values())

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        inputs = {s.data_ptr() for s in storages((args, kwargs))}
        out = func(*args, **kwargs)
        for s in storages(out):
            if s.data_ptr() not in inputs:  # new: not in place, not a view
                self.allocated += s.nbytes()
                self.live[s.data_ptr()] = (StorageWeakRef(s), s.nbytes())
        self.peak = max(self.peak, self.live_bytes())
        return out


torch.manual_seed(0)
layers = [torch.nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)]
x = torch.randn(BATCH, WIDTH)
glue("inplace_mem_batch", BATCH)
glue("inplace_mem_width", WIDTH)
glue("inplace_mem_layers", LAYERS)
glue("inplace_mem_activation", BATCH * WIDTH * 4 / MiB)

results = {}
print(f"{LAYERS} x (Linear({WIDTH}, {WIDTH}) + ReLU), batch {BATCH}; "
      "MiB during one forward:")
print(f"{'':14}{'allocated':>11}{'peak':>7}{'alive after':>13}"
      f"{'graph saved':>13}")
for call, variant in [("relu()", "outofplace"), ("relu_()", "inplace")]:
    with saved_tensors() as saved, Allocations() as memory:
        h = x
        for layer in layers:
            h = layer(h)
            h = h.relu_() if variant == "inplace" else h.relu()
        after = memory.live_bytes()
    row = {"allocated": memory.allocated, "peak": memory.peak,
           "after": after, "graph": saved.storage_bytes}
    mib = {key: value / MiB for key, value in row.items()}
    print(f"h = h.{call:8}{mib['allocated']:11.1f}{mib['peak']:7.1f}"
          f"{mib['after']:13.1f}{mib['graph']:13.1f}")
    for key, value in mib.items():
        glue(f"inplace_mem_{variant}_{key}", value)
        results[variant, key] = value
    del h

for key in ("allocated", "peak", "after", "graph"):
    saving = results["outofplace", key] - results["inplace", key]
    glue(f"inplace_mem_saved_{key}", saving)
