import torch
from torch import nn

from measured import glue

LAYERS, WIDTH, BATCH = 8, 1024, 512
MIB = 2 ** 20

torch.manual_seed(0)
model = nn.Sequential(*[nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)])
x = torch.randn(BATCH, WIDTH)

# A forward pre-hook tells the pack hook which layer runs, and on what input.
current = {}
for number, layer in enumerate(model, start=1):
    def note(layer, args, number=number):
        current.update(number=number, layer=layer, input=args[0])
    layer.register_forward_pre_hook(note)


def address(tensor):
    return tensor.untyped_storage().data_ptr()


rows = []


def pack(tensor):
    if address(tensor) == address(current["layer"].weight):
        what = "weight"
    elif address(tensor) == address(current["input"]):
        what = "x" if current["input"] is x else "input"
    else:
        what = "?"
    nbytes = tensor.numel() * tensor.element_size()
    rows.append((current["number"], what, tuple(tensor.shape), nbytes))
    return tensor.detach()


with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed):
    model(x)

print(f"{'layer':>5}  {'saved':7}{'shape':14}{'MiB':>5}")
for number, what, shape, nbytes in rows:
    print(f"{number:>5}  {what:7}{str(shape):14}{nbytes / MIB:>5.1f}")

inputs = [r[3] / MIB for r in rows if r[1] in ("x", "input")]
weights = [r[3] / MIB for r in rows if r[1] == "weight"]
assert len(inputs) + len(weights) == len(rows)
for label, sizes in [("layer inputs:", inputs), ("weights:", weights)]:
    print(f"{label:14}{len(sizes)} x {sizes[0]:.1f} MiB"
          f" = {sum(sizes):.1f} MiB")
with_weight = {r[0] for r in rows if r[1] == "weight"}
unsaved = [n for n in range(1, LAYERS + 1) if n not in with_weight]
print("layers whose weight was not saved:", unsaved)

glue("gm_inputs_count", len(inputs))
glue("gm_input_mib", inputs[0])
glue("gm_inputs_mib", sum(inputs))
glue("gm_weights_count", len(weights))
glue("gm_weight_mib", weights[0])
glue("gm_weights_mib", sum(weights))
glue("gm_unsaved_weight_layer", unsaved[0])
