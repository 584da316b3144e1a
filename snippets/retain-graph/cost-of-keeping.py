import weakref
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F

from measured import SavedTensors, glue

BATCH, WIDTH, STEPS = 256, 1024, 3
MiB = 2**20


@dataclass
class LiveSaved(SavedTensors):
    """SavedTensors plus a weak reference to each saved tensor."""

    refs: list = field(default_factory=list)
    ignore: set = field(default_factory=set)  # storages that exist anyway
    peak: int = 0

    def pack(self, tensor):
        kept = super().pack(tensor)
        self.refs.append(weakref.ref(kept))
        self.peak = max(self.peak, self.live()[1])
        return kept

    def live(self):
        """Saved tensors still alive, and the bytes of their storages."""
        alive = [ref() for ref in self.refs if ref() is not None]
        storages = [t.untyped_storage() for t in alive]
        sizes = {s.data_ptr(): s.nbytes() for s in storages}
        kept = sum(n for ptr, n in sizes.items() if ptr not in self.ignore)
        return len(alive), kept


torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.Tanh(),
                      nn.Linear(WIDTH, WIDTH), nn.Tanh())
classify, regress = nn.Linear(WIDTH, 10), nn.Linear(WIDTH, 1)
modules = nn.ModuleList([trunk, classify, regress])
x = torch.randn(BATCH, WIDTH)
labels, targets = torch.randint(0, 10, (BATCH,)), torch.randn(BATCH, 1)
# The graph saves the weights and x too, but they exist anyway: not counted.
exists_anyway = {t.untyped_storage().data_ptr()
                 for t in [x, *modules.parameters()]}


def two_losses():
    features = trunk(x)
    return (F.cross_entropy(classify(features), labels),
            F.mse_loss(regress(features), targets))


def report(label, saved):
    count, size = saved.live()
    print(f"{label:42}{count:6}  {size / MiB:6.2f}")
    return size / MiB


print(f"{'':42}{'saved':>6}  {'MiB':>6}")
saved = LiveSaved(ignore=exists_anyway)
with torch.autograd.graph.saved_tensors_hooks(saved.pack, saved.unpack):
    loss_a, loss_b = two_losses()
glue("rg_keep_forward_mib", report("after the forward", saved))
loss_a.backward(retain_graph=True)
retained = report("after loss_a.backward(retain_graph=True)", saved)
glue("rg_keep_retained_mib", retained)
loss_b.backward()
glue("rg_keep_after_second_mib", report("after loss_b.backward()", saved))
del loss_a, loss_b
glue("rg_keep_dropped_mib", report("after del loss_a, loss_b", saved))
modules.zero_grad()

saved = LiveSaved(ignore=exists_anyway)
with torch.autograd.graph.saved_tensors_hooks(saved.pack, saved.unpack):
    loss_a, loss_b = two_losses()
(loss_a + loss_b).backward()
glue("rg_keep_sum_mib", report("after (loss_a + loss_b).backward()", saved))

# In a training loop, retain_graph=True keeps each step's graph until `loss` is
# rebound, that is, through the next step's forward; in a function, `loss` dies
# when the function returns, unless the function returns it.
def train_step(optimizer, retain):
    optimizer.zero_grad()
    loss = sum(two_losses())
    loss.backward(retain_graph=retain)
    optimizer.step()
    return loss.item()


def train_step_returning_loss(optimizer, retain):
    optimizer.zero_grad()
    loss = sum(two_losses())
    loss.backward(retain_graph=retain)
    optimizer.step()
    return loss  # for logging, as many step functions do


WHERE = {"plain": "inline loop", "retain": "inline loop",
         "function": "a step returning loss.item()", "returned": "a step returning loss"}
peaks = {}
for kind, retain in (("plain", False), ("retain", True), ("function", True), ("returned", True)):
    saved = LiveSaved(ignore=exists_anyway)
    optimizer = torch.optim.SGD(modules.parameters(), lr=0.01)
    with torch.autograd.graph.saved_tensors_hooks(saved.pack, saved.unpack):
        for _ in range(STEPS):
            if kind == "function":
                train_step(optimizer, retain)
            elif kind == "returned":
                loss = train_step_returning_loss(optimizer, retain)
            else:
                optimizer.zero_grad()
                loss = sum(two_losses())
                loss.backward(retain_graph=retain)
                optimizer.step()
            kept = saved.live()[1]  # what is still saved when the step ends
    print(f"{STEPS} steps, {WHERE[kind] + ':':30}backward(retain_graph={retain!s:5}): "
          f"peak {saved.peak / MiB:.2f} MiB saved")
    peaks[kind] = saved.peak
    glue(f"rg_keep_peak_{kind}_mib", saved.peak / MiB)
assert peaks["function"] == peaks["plain"] < peaks["retain"] == peaks["returned"]
# The last loop kept one step's graph (`loss` holds it) at the end of each step: it is what
# retain_graph=True adds to the next step's peak, here about as much as the plain peak.
assert peaks["plain"] + 0.99 * kept < peaks["retain"] <= peaks["plain"] + kept, (kept, peaks)
assert 0.99 * peaks["plain"] < kept <= peaks["plain"], (kept, peaks)
glue("rg_keep_batch", BATCH)
glue("rg_keep_width", WIDTH)
glue("rg_keep_tanh_mib", BATCH * WIDTH * 4 / MiB)  # one Tanh output, float32
