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
    saved.append(tensor.detach())  # keep what the graph keeps, to inspect it
    return saved[-1]


with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed):
    model(x)


def address(tensor):
    return tensor.untyped_storage().data_ptr()


# Is a saved weight a copy, or the parameter's own memory?
weight = model[1].weight
kept = next(t for t in saved if address(t) == address(weight))
print(f"layer 2 weight: shape {tuple(weight.shape)}, stride {weight.stride()}")
print(f"saved for it:   shape {tuple(kept.shape)}, stride {kept.stride()}")
print("same data_ptr:", kept.data_ptr() == weight.data_ptr())

parameters = {address(p) for p in model.parameters()}
weights = [t for t in saved if t.shape == weight.shape]
shared = sum(address(t) in parameters for t in weights)
print(f"saved weights in a parameter's storage: {shared} of {len(weights)}")

# Count each storage once.
storages = {address(t): t.untyped_storage().nbytes() for t in saved}
total = sum(storages.values()) / MIB
in_parameters = sum(n for a, n in storages.items() if a in parameters) / MIB
activations = total - in_parameters
x_mib = x.untyped_storage().nbytes() / MIB
print(f"saved storages: {len(storages)}, {total:.1f} MiB")
print(f"  parameters' own storage:        {in_parameters:5.1f} MiB")
print(f"  activations:                    {activations:5.1f} MiB")
print(f"    of which x (held by caller):  {x_mib:5.1f} MiB, "
      f"saved: {address(x) in storages}")
print(f"memory that exists for backward:  {activations - x_mib:5.1f} MiB")

glue("gm_ref_params_mib", in_parameters)
glue("gm_ref_activations_mib", activations)
glue("gm_ref_x_mib", x_mib)
glue("gm_ref_extra_mib", activations - x_mib)

# Under autocast each layer multiplies by a bfloat16 copy of its weight (and
# of its input), and the node saves what it multiplied: the copies.
amp_saved = []


def amp_pack(tensor):
    amp_saved.append(tensor.detach())
    return amp_saved[-1]


with torch.autocast("cpu", dtype=torch.bfloat16), \
        torch.autograd.graph.saved_tensors_hooks(amp_pack, lambda packed: packed):
    model(x)
amp_weights = [t for t in amp_saved if t.shape == weight.shape]
amp_shared = sum(address(t) in parameters for t in amp_weights)
amp_storages = {address(t): t.untyped_storage().nbytes() for t in amp_saved}
amp_weight_mib = sum({address(t): t.untyped_storage().nbytes() for t in amp_weights}.values()) / MIB
amp_new_mib = sum(n for a, n in amp_storages.items() if a not in parameters and a != address(x)) / MIB
print(f"under autocast (bfloat16): saved weights in a parameter's storage: {amp_shared} of {len(amp_weights)}, "
      f"dtype {amp_weights[0].dtype}")
print(f"  new memory: weights {amp_weight_mib:.1f} MiB, activations {amp_new_mib - amp_weight_mib:.1f} MiB, "
      f"in all {amp_new_mib:.1f} MiB")
glue("gm_amp_shared", amp_shared)
glue("gm_amp_weights_mib", amp_weight_mib)
glue("gm_amp_activations_mib", amp_new_mib - amp_weight_mib)
glue("gm_amp_new_mib", amp_new_mib)
