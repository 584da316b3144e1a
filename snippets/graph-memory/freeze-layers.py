import torch
from torch import nn

from measured import glue

LAYERS, WIDTH, BATCH = 8, 1024, 512
MIB = 2 ** 20

torch.manual_seed(0)
model = nn.Sequential(*[nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)])
x = torch.randn(BATCH, WIDTH)
parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}

current = {}
for number, layer in enumerate(model, start=1):
    def note(layer, args, number=number):
        current.update(number=number)
    layer.register_forward_pre_hook(note)


def saved_by(frozen):
    """Freeze the layers numbered in `frozen`, run forward, label what is saved."""
    for number, layer in enumerate(model, start=1):
        layer.requires_grad_(number not in frozen)
    saved = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() in parameters:
            label = f"weight of layer {current['number']}"
        elif storage.data_ptr() == x.data_ptr():
            label = "x"
        else:
            label = f"input of layer {current['number']}"
        saved[label] = (storage.data_ptr(), storage.nbytes())
        return tensor.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    return saved


# New memory: neither a parameter nor x (both exist with or without a graph).
held_anyway = parameters | {x.data_ptr()}
print(f"{'frozen':>6}{'hook: tensors':>15}{'MiB':>6}{'new memory MiB':>16}")
results = {}
for frozen in (0, 1, 2, 4):
    saved = results[frozen] = saved_by(range(1, frozen + 1))
    hook_mib = sum(n for _, n in saved.values()) / MIB
    new_mib = sum(n for a, n in saved.values() if a not in held_anyway) / MIB
    print(f"{frozen:>6}{len(saved):>15}{hook_mib:>6.1f}{new_mib:>16.1f}")
    glue(f"gm_frozen{frozen}_layers", frozen)
    glue(f"gm_frozen{frozen}_calls", len(saved))
    glue(f"gm_frozen{frozen}_mib", hook_mib)
    glue(f"gm_frozen{frozen}_new_mib", new_mib)

print("freezing layer 1 stops saving:",
      sorted(results[0].keys() - results[1].keys()))
print("and starts saving:", sorted(results[1].keys() - results[0].keys()))

# A layer in the middle, frozen alone.
MIDDLE = 5
middle = saved_by({MIDDLE})
middle_new_mib = sum(n for a, n in middle.values() if a not in held_anyway) / MIB
print(f"only layer {MIDDLE} frozen: new memory {middle_new_mib:.1f} MiB; it stops saving",
      sorted(results[0].keys() - middle.keys()))
glue("gm_frozen_middle_layer", MIDDLE)
glue("gm_frozen_middle_new_mib", middle_new_mib)
