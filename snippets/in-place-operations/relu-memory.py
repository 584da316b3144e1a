import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from measured import glue, saved_tensors

MiB = 2**20
BATCH, WIDTH, LAYERS = 512, 1024, 4


class Allocations(TorchDispatchMode):
    """Sees every operation below autograd: counts the bytes of each new storage an operation
    creates, and the peak of those still alive (weak references, so we keep none alive)."""

    def __init__(self):
        super().__init__()
        self.allocated = self.peak = 0
        self.live = {}

    def live_bytes(self):
        self.live = {ptr: (ref, size) for ptr, (ref, size) in self.live.items() if not ref.expired()}
        return sum(size for _, size in self.live.values())

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        inputs = {t.untyped_storage().data_ptr() for t in tree_leaves((args, kwargs or {}))
                  if isinstance(t, torch.Tensor)}
        out = func(*args, **(kwargs or {}))
        for t in tree_leaves(out):
            storage = t.untyped_storage() if isinstance(t, torch.Tensor) else None
            if storage is not None and storage.data_ptr() not in inputs:  # new, not in place or a view
                self.allocated += storage.nbytes()
                self.live[storage.data_ptr()] = (StorageWeakRef(storage), storage.nbytes())
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
print(f"{LAYERS} x (Linear({WIDTH}, {WIDTH}) + ReLU), batch {BATCH}; MiB during one forward:")
print(f"{'':14}{'allocated':>11}{'peak':>7}{'alive after':>13}{'graph saved':>13}")
for call, variant in [("relu()", "outofplace"), ("relu_()", "inplace")]:
    with saved_tensors() as saved, Allocations() as memory:
        h = x
        for layer in layers:
            h = layer(h)
            h = h.relu_() if variant == "inplace" else h.relu()
        after = memory.live_bytes()
    print(f"h = h.{call:8}{memory.allocated / MiB:11.1f}{memory.peak / MiB:7.1f}"
          f"{after / MiB:13.1f}{saved.storage_bytes / MiB:13.1f}")
    for key, value in [("allocated", memory.allocated), ("peak", memory.peak),
                       ("after", after), ("graph", saved.storage_bytes)]:
        glue(f"inplace_mem_{variant}_{key}", value / MiB)
        results[variant, key] = value / MiB
    del h

for key in ("allocated", "peak", "after", "graph"):
    glue(f"inplace_mem_saved_{key}", results["outofplace", key] - results["inplace", key])
