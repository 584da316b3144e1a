import weakref

import torch
from torch import nn

from measured import glue

MiB = 2**20
BATCHES, BATCH = 20, 128
glue("ng_loop_batches", BATCHES)
glue("ng_loop_batch_size", BATCH)


class LiveSaved:
    """Bytes of storage that live graphs hold for backward, parameters aside.

    The pack hook sees each tensor as it is saved; a weak reference to what
    it returns tells when the graph that saved it has been freed.
    """

    def __init__(self, model):
        params = model.parameters()
        self.skip = {p.untyped_storage().data_ptr() for p in params}
        self.holders = {}  # storage address -> [live saved tensors, bytes]
        self.bytes = self.peak = 0

    def pack(self, tensor):
        kept = tensor.detach()  # what the graph keeps: same storage, no graph
        storage = tensor.untyped_storage()
        address = storage.data_ptr()
        if address not in self.skip:
            entry = self.holders.setdefault(address, [0, storage.nbytes()])
            if entry[0] == 0:
                self.bytes += entry[1]
                self.peak = max(self.peak, self.bytes)
            entry[0] += 1
            weakref.finalize(kept, self.release, address)
        return kept

    def release(self, address):
        entry = self.holders[address]
        entry[0] -= 1
        if entry[0] == 0:
            self.bytes -= entry[1]
            del self.holders[address]


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(),
                      nn.Linear(1024, 1024), nn.ReLU(),
                      nn.Linear(1024, 10)).eval()
batches = [torch.randn(BATCH, 256) for _ in range(BATCHES)]
LOOPS = {"no_grad": "no_grad",
         "rebind": "out = model(x)",
         "append": "outputs.append(out)",
         "detached": "outputs.append(out.detach())"}

print(f"MiB held after batch {'1':>12}{'2':>7}{'3':>7}{BATCHES:>7}   peak")
for key, loop in LOOPS.items():
    live, outputs, held = LiveSaved(model), [], []
    grad_mode = torch.no_grad() if key == "no_grad" else torch.enable_grad()
    hooks = torch.autograd.graph.saved_tensors_hooks(live.pack, lambda t: t)
    with hooks, grad_mode:
        for x in batches:
            out = model(x)  # rebinding `out` frees the previous graph
            hits = (out.argmax(dim=1) == 0).sum().item()  # a Python number
            if key == "append":
                outputs.append(out)  # each output keeps its graph alive
            elif key == "detached":
                outputs.append(out.detach())  # the numbers, not the graph
            held.append(live.bytes / MiB)
    print(f"{loop:28}{held[0]:5.2f}{held[1]:7.2f}{held[2]:7.2f}"
          f"{held[-1]:7.2f}{live.peak / MiB:7.2f}")
    if key != "no_grad":
        glue(f"ng_loop_{key}_last", held[-1])
    if key in ("no_grad", "rebind"):
        glue(f"ng_loop_{key}_peak", live.peak / MiB)
    del out, outputs
print(f"after `del out, outputs`: {live.bytes / MiB:.2f} MiB held")

# A recurrent model evaluated with its state carried from one batch to the
# next: the state links each batch's graph to the previous one.
lstm = nn.LSTM(64, 128, batch_first=True).eval()
sequences = [torch.randn(32, 16, 64) for _ in range(BATCHES)]
STATE_LOOPS = {"no_grad": "no_grad",
               "carried": "out, state = lstm(x, state)",
               "detached": "same, state detached"}
print("LSTM(64, 128), state carried to the next batch")
for key, loop in STATE_LOOPS.items():
    live, held, state = LiveSaved(lstm), [], None
    grad_mode = torch.no_grad() if key == "no_grad" else torch.enable_grad()
    hooks = torch.autograd.graph.saved_tensors_hooks(live.pack, lambda t: t)
    with hooks, grad_mode:
        for x in sequences:
            out, state = lstm(x, state)
            if key == "detached":
                state = tuple(s.detach() for s in state)  # cut the link
            held.append(live.bytes / MiB)
    print(f"{loop:28}{held[0]:5.2f}{held[1]:7.2f}{held[2]:7.2f}"
          f"{held[-1]:7.2f}{live.peak / MiB:7.2f}")
    if key == "carried":
        glue("ng_loop_state_carried_first", held[0])
    if key != "no_grad":
        glue(f"ng_loop_state_{key}_last", held[-1])
    del out, state
print(f"after `del out, state`: {live.bytes / MiB:.2f} MiB held")
