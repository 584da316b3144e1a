import weakref
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from measured import SavedTensors, glue

BATCHES, BATCH, FEATURES = 4, 128, 1024
MiB = 2**20


@dataclass
class LiveSaved(SavedTensors):
    """SavedTensors that also keeps a weak reference to each saved tensor, to see which survive."""

    refs: list = field(default_factory=list)

    def pack(self, tensor):
        kept = super().pack(tensor)
        self.refs.append(weakref.ref(kept))  # dies when the graph lets go of the saved tensor
        return kept

    def live(self):
        alive = [ref() for ref in self.refs if ref() is not None]
        storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in alive}
        return len(alive), sum(storages.values())


def nodes(value):
    """How many backward nodes hang below `value` (0 for a float)."""
    seen, todo = set(), [value.grad_fn] if isinstance(value, torch.Tensor) else []
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo += [parent for parent, _ in node.next_functions]
    return len(seen)


def run(backward_each_batch, sum_as_tensor):
    torch.manual_seed(0)
    w = torch.zeros(FEATURES, 1, requires_grad=True)
    optimizer = torch.optim.SGD([w], lr=0.01)
    saved = LiveSaved()
    total_loss, rows = 0.0, []
    with torch.autograd.graph.saved_tensors_hooks(saved.pack, saved.unpack):
        for _ in range(BATCHES):
            x, y = torch.randn(BATCH, FEATURES), torch.randn(BATCH, 1)  # fresh, as a data loader yields
            loss = F.mse_loss(x @ w, y)
            if backward_each_batch:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total_loss += loss if sum_as_tensor else loss.item()
            rows.append((nodes(total_loss), *saved.live()))  # measured with `loss`, x, y still in scope
    return rows


loops = {
    "train": run(backward_each_batch=True, sum_as_tensor=True),
    "eval": run(backward_each_batch=False, sum_as_tensor=True),
    "eval_item": run(backward_each_batch=False, sum_as_tensor=False),
}
print("         training loop,          evaluation loop,        evaluation loop,")
print("         total_loss += loss      total_loss += loss      total += loss.item()")
print("batch    nodes  saved    MiB     nodes  saved    MiB     nodes  saved    MiB")
for batch in range(BATCHES):
    cells = [f"{n:5}  {count:5}  {size / MiB:5.3f}" for n, count, size in (rows[batch] for rows in loops.values())]
    print(f"{batch + 1:5}    " + "   ".join(cells))

for name, rows in loops.items():
    glue(f"rg_{name}_nodes_first", rows[0][0])
    glue(f"rg_{name}_nodes_last", rows[-1][0])
    glue(f"rg_{name}_saved_last", rows[-1][1])
    glue(f"rg_{name}_mib_last", rows[-1][2] / MiB)
eval_rows = loops["eval"]
per_batch = (eval_rows[-1][2] - eval_rows[0][2]) / (BATCHES - 1)
print(f"evaluation loop with a tensor total: +{per_batch:,.0f} bytes ({per_batch / MiB:.3f} MiB) per batch")
glue("rg_pile_bytes_per_batch", round(per_batch))
glue("rg_pile_saved_per_batch", (eval_rows[-1][1] - eval_rows[0][1]) // (BATCHES - 1))
glue("rg_nodes_per_batch", (eval_rows[-1][0] - eval_rows[0][0]) // (BATCHES - 1))
glue("rg_pile_mib_per_batch", per_batch / MiB)
glue("rg_pile_input_mib", BATCH * FEATURES * 4 / MiB)  # float32: 4 bytes
glue("rg_pile_small_bytes", BATCH * 4)  # a prediction or a target: BATCH float32
glue("rg_pile_batch", BATCH)
glue("rg_pile_features", FEATURES)
