import weakref

import torch
from torch import nn

from measured import glue

MiB = 2**20
BATCHES, BATCH = 20, 128
glue("ng_loop_batches", BATCHES)
glue("ng_loop_batch_size", BATCH)


class LiveSaved:
    """Bytes of the storages that graphs still hold for backward, parameters left out.

    The pack hook sees each tensor when it is saved; a weak reference to what it returns
    tells when the graph that saved it is freed.
    """

    def __init__(self, model):
        self.parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
        self.holders = {}  # storage address -> [saved tensors still alive, bytes]
        self.bytes = self.peak = 0

    def pack(self, tensor):
        packed = tensor.detach()  # what the graph keeps: same storage, no reference to the graph
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in self.parameters:
            entry = self.holders.setdefault(storage.data_ptr(), [0, storage.nbytes()])
            if entry[0] == 0:
                self.bytes += entry[1]
                self.peak = max(self.peak, self.bytes)
            entry[0] += 1
            weakref.finalize(packed, self.release, storage.data_ptr())
        return packed

    def release(self, address):
        entry = self.holders[address]
        entry[0] -= 1
        if entry[0] == 0:
            self.bytes -= entry[1]
            del self.holders[address]


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))
model.eval()
batches = [torch.randn(BATCH, 256) for _ in range(BATCHES)]

print(f"{'evaluation loop':34}{'held after batch 1':>19}{'2':>7}{'3':>7}{BATCHES:>7}{'peak':>7}  (MiB)")
for loop in ("no_grad", "out = model(x)", "outputs.append(out)", "outputs.append(out.detach())"):
    live, outputs, held = LiveSaved(model), [], []
    with torch.autograd.graph.saved_tensors_hooks(live.pack, lambda t: t):
        with torch.no_grad() if loop == "no_grad" else torch.enable_grad():
            for x in batches:
                out = model(x)  # rebinding `out` frees the previous batch's graph
                correct = (out.argmax(dim=1) == 0).sum().item()  # a metric: a Python number
                if loop == "outputs.append(out)":
                    outputs.append(out)  # each output keeps its whole graph alive
                elif loop == "outputs.append(out.detach())":
                    outputs.append(out.detach())  # keeps the numbers, not the graph
                held.append(live.bytes / MiB)
    print(f"{loop:34}{held[0]:19.2f}{held[1]:7.2f}{held[2]:7.2f}{held[-1]:7.2f}{live.peak / MiB:7.2f}")
    key = {"no_grad": "no_grad", "out = model(x)": "rebind", "outputs.append(out)": "append",
           "outputs.append(out.detach())": "detached"}[loop]
    if key != "no_grad":
        glue(f"ng_loop_{key}_last", held[-1])
    if key in ("no_grad", "rebind"):
        glue(f"ng_loop_{key}_peak", live.peak / MiB)
    del out, outputs
print(f"after `del out, outputs`: {live.bytes / MiB:.2f} MiB held")
