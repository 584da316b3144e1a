import torch
from torch import nn

from measured import glue

LAYERS, WIDTH, BATCH = 8, 1024, 512
MIB = 2 ** 20

torch.manual_seed(0)
model = nn.Sequential(*[nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)])
x = torch.randn(BATCH, WIDTH)

# A forward pre-hook tells the pack hook which layer is running and what its input is.
current = {}
for number, layer in enumerate(model, start=1):
    layer.register_forward_pre_hook(
        lambda layer, args, number=number: current.update(number=number, layer=layer, input=args[0]))

rows = []


def pack(tensor):
    storage = tensor.untyped_storage().data_ptr()
    if storage == current["layer"].weight.untyped_storage().data_ptr():
        what = "weight"
    elif storage == current["input"].untyped_storage().data_ptr():
        what = "x" if current["input"] is x else "input"
    else:
        what = "?"
    rows.append((current["number"], what, tuple(tensor.shape), tensor.numel() * tensor.element_size()))
    return tensor.detach()


with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed):
    model(x)

print(f"{'layer':>5}  {'saved':7}{'shape':14}{'MiB':>5}")
for number, what, shape, nbytes in rows:
    print(f"{number:>5}  {what:7}{str(shape):14}{nbytes / MIB:>5.1f}")

inputs = [r for r in rows if r[1] in ("x", "input")]
weights = [r for r in rows if r[1] == "weight"]
assert len(inputs) + len(weights) == len(rows)
print(f"layer inputs: {len(inputs)} x {inputs[0][3] / MIB:.1f} MiB = {sum(r[3] for r in inputs) / MIB:.1f} MiB")
print(f"weights:      {len(weights)} x {weights[0][3] / MIB:.1f} MiB = {sum(r[3] for r in weights) / MIB:.1f} MiB")
unsaved = [n for n in range(1, LAYERS + 1) if n not in {r[0] for r in weights}]
print("layers whose weight was not saved:", unsaved)

glue("gm_inputs_count", len(inputs))
glue("gm_input_mib", inputs[0][3] / MIB)
glue("gm_inputs_mib", sum(r[3] for r in inputs) / MIB)
glue("gm_weights_count", len(weights))
glue("gm_weight_mib", weights[0][3] / MIB)
glue("gm_weights_mib", sum(r[3] for r in weights) / MIB)
glue("gm_unsaved_weight_layer", unsaved[0])
