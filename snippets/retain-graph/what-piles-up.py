import weakref
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from measured import SavedTensors, glue

BATCHES, BATCH, FEATURES = 4, 128, 1024
MiB = 2**20


@dataclass
class LiveSaved(SavedTensors):
    """SavedTensors plus a weak reference to each saved tensor."""

    refs: list = field(default_factory=list)

    def pack(self, tensor):
        kept = super().pack(tensor)
        self.refs.append(weakref.ref(kept))  # dead once the graph drops it
        return kept

    def live(self):
        """Saved tensors still alive, and the bytes of their storages."""
        alive = [ref() for ref in self.refs if ref() is not None]
        storages = [t.untyped_storage() for t in alive]
        sizes = {s.data_ptr(): s.nbytes() for s in storages}
        return len(alive), sum(sizes.values())


def nodes(value):
    """How many backward nodes hang below `value` (0 for a float)."""
    seen = set()
    todo = [value.grad_fn] if isinstance(value, torch.Tensor) else []
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
            # new tensors for every batch, as a data loader yields them
            x, y = torch.randn(BATCH, FEATURES), torch.randn(BATCH, 1)
            loss = F.mse_loss(x @ w, y)
            if backward_each_batch:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            total_loss += loss if sum_as_tensor else loss.item()
            # measured at the end of a batch: `loss`, x and y still in scope
            rows.append((nodes(total_loss), *saved.live()))
    return rows


loops = {
    "train": run(backward_each_batch=True, sum_as_tensor=True),
    "eval": run(backward_each_batch=False, sum_as_tensor=True),
    "eval_item": run(backward_each_batch=False, sum_as_tensor=False),
}
pad = " " * 9
print(pad + "training loop        evaluation loop      evaluation loop")
print(pad + "total_loss += loss   total_loss += loss   total += loss.item()")
print("batch    nodes saved   MiB    nodes saved   MiB    nodes saved   MiB")
for batch in range(BATCHES):
    cells = [f"{n:5} {count:5} {size / MiB:5.3f}"
             for n, count, size in (rows[batch] for rows in loops.values())]
    print(f"{batch + 1:5}    " + "    ".join(cells))

glue("rg_train_nodes_first", loops["train"][0][0])
glue("rg_train_nodes_last", loops["train"][-1][0])
for name, rows in loops.items():
    glue(f"rg_{name}_saved_last", rows[-1][1])
glue("rg_eval_mib_last", loops["eval"][-1][2] / MiB)
glue("rg_eval_item_mib_last", loops["eval_item"][-1][2] / MiB)
first, last = loops["eval"][0], loops["eval"][-1]
per_batch = [(end - start) // (BATCHES - 1) for start, end in zip(first, last)]
print(f"evaluation loop, tensor total: +{per_batch[2]:,} bytes "
      f"({per_batch[2] / MiB:.3f} MiB) per batch")
glue("rg_nodes_per_batch", per_batch[0])
glue("rg_pile_saved_per_batch", per_batch[1])
glue("rg_pile_bytes_per_batch", per_batch[2])
glue("rg_pile_mib_per_batch", per_batch[2] / MiB)
glue("rg_pile_input_mib", BATCH * FEATURES * 4 / MiB)  # float32: 4 bytes
glue("rg_pile_small_bytes", BATCH * 4)  # prediction or target: BATCH float32
glue("rg_pile_batch", BATCH)
glue("rg_pile_features", FEATURES)
