import torch
from torch import nn

from measured import figure, glue

LAYERS, WIDTH = 8, 1024
BATCHES = (64, 128, 256, 512, 1024, 2048)
ROWS = 64  # the unit the prose counts in
MIB = 2 ** 20

torch.manual_seed(0)
model = nn.Sequential(*[nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)])
parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}


def saved_storages(x):
    """{storage address: bytes} of everything forward saved for backward."""
    storages = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
        return tensor.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return storages


weights, activations = [], []
for batch in BATCHES:
    storages = saved_storages(torch.randn(batch, WIDTH))
    # Weights are the parameters' own storage; the rest grows with the batch.
    weights.append(
        sum(n for a, n in storages.items() if a in parameters) / MIB)
    activations.append(
        sum(n for a, n in storages.items() if a not in parameters) / MIB)
    glue(f"gm_scale_total_{batch}", weights[-1] + activations[-1])

print(f"{'batch':>5}{'weights':>9}{'activations':>13}{'total':>7}  (MiB)")
for batch, w, a in zip(BATCHES, weights, activations):
    print(f"{batch:>5}{w:>9.1f}{a:>13.1f}{w + a:>7.1f}")
per_rows = [a / b * ROWS for a, b in zip(activations, BATCHES)]
assert len(set(weights)) == 1 and len(set(per_rows)) == 1
print(f"fixed: {weights[0]:.1f} MiB; per {ROWS} rows: {per_rows[0]:.1f} MiB")
glue("gm_scale_rows", ROWS)
glue("gm_scale_batch_min", BATCHES[0])
glue("gm_scale_batch_max", BATCHES[-1])
glue("gm_scale_fixed_mib", weights[0])
glue("gm_scale_per_rows_mib", per_rows[0])

fig, ax = figure()
labels = [str(b) for b in BATCHES]
ax.bar(labels, weights, color="#8da0cb",
       label="weights (the parameters' own storage)")
ax.bar(labels, activations, bottom=weights, color="#fc8d62",
       label="activations (new memory)")
for i, (w, a) in enumerate(zip(weights, activations)):
    ax.text(i, w + a + 1.5, f"{w + a:.0f}", ha="center")
ax.set_xlabel("batch size (rows)")
ax.set_ylabel("saved for backward (MiB)")
ax.set_ylim(0, (weights[-1] + activations[-1]) * 1.15)
ax.legend(loc="upper left", frameon=False)
glue("gm_scale_fig", fig)
