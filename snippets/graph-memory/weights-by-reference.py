import torch
from torch import nn

from measured import glue

LAYERS, WIDTH, BATCH = 8, 1024, 512
MIB = 2 ** 20

torch.manual_seed(0)
model = nn.Sequential(*[nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)])
x = torch.randn(BATCH, WIDTH)

saved = []


def pack(tensor):
    saved.append(tensor.detach())  # keep what the graph keeps, to look at it afterwards
    return saved[-1]


with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed):
    model(x)

# Is a saved tensor a copy, or does it point at memory that already exists?
second = model[1].weight
saved_weight = next(t for t in saved if t.untyped_storage().data_ptr() == second.data_ptr())
print(f"layer 2 weight:  shape {tuple(second.shape)}, stride {second.stride()}")
print(f"saved for it:    shape {tuple(saved_weight.shape)}, stride {saved_weight.stride()}  (transposed view)")
print("same data_ptr:", saved_weight.data_ptr() == second.data_ptr())

parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in saved}
in_parameters = sum(n for ptr, n in storages.items() if ptr in parameters) / MIB
activations = sum(n for ptr, n in storages.items() if ptr not in parameters) / MIB
x_mib = x.untyped_storage().nbytes() / MIB
x_saved = x.untyped_storage().data_ptr() in storages
weights = [t for t in saved if t.shape == second.shape]
print(f"saved weights that are a parameter's own storage: "
      f"{sum(t.untyped_storage().data_ptr() in parameters for t in weights)} of {len(weights)}")
print(f"saved storages: {len(storages)}, {sum(storages.values()) / MIB:.1f} MiB")
print(f"  that are parameters' own storage:   {in_parameters:5.1f} MiB")
print(f"  activations:                        {activations:5.1f} MiB")
print(f"    of which x (the caller holds it): {x_mib:5.1f} MiB (saved: {x_saved})")
print(f"memory that exists only for backward: {activations - x_mib:5.1f} MiB")

glue("gm_ref_params_mib", in_parameters)
glue("gm_ref_activations_mib", activations)
glue("gm_ref_x_mib", x_mib)
glue("gm_ref_extra_mib", activations - x_mib)
