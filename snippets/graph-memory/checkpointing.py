import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from measured import glue

LAYERS, WIDTH, BATCH = 8, 1024, 512
MIB = 2 ** 20

torch.manual_seed(0)
model = nn.Sequential(*[nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)])
x = torch.randn(BATCH, WIDTH)
held_anyway = {p.untyped_storage().data_ptr() for p in model.parameters()}
held_anyway.add(x.data_ptr())

# A forward hook runs when a layer's forward has finished: counted during
# backward, it tells which layers were really computed a second time.
in_backward, recomputed = [False], []
for number, layer in enumerate(model, start=1):
    def note(layer, args, output, number=number):
        if in_backward[0]:
            recomputed.append(number)
    layer.register_forward_hook(note)


def run(per_segment):
    """Forward and backward, with checkpoints of per_segment layers each
    (None: no checkpointing). Returns saved MiB, new MiB, the layers whose
    forward ran to its end again during backward, and the gradients."""
    model.zero_grad(set_to_none=True)
    recomputed.clear()
    storages = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        storages[storage.data_ptr()] = storage.nbytes()
        return tensor.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if per_segment is None:
            out = model(x)
        else:
            out = x
            for start in range(0, LAYERS, per_segment):
                # Keeps the segment's input; what the segment would save
                # is recomputed during backward.
                segment = model[start:start + per_segment]
                out = checkpoint(segment, out, use_reentrant=False)
    in_backward[0] = True
    out.square().mean().backward()
    in_backward[0] = False
    saved = sum(storages.values()) / MIB
    new = sum(n for a, n in storages.items() if a not in held_anyway) / MIB
    grads = [p.grad for p in model.parameters()]
    return saved, new, list(recomputed), grads


print("layers per checkpoint  saved MiB  new MiB  layers computed again in backward")
for per_segment in (None, 1, 2, 4):
    saved, new, again, grads = run(per_segment)
    if per_segment is None:
        reference = grads
    # Checkpointing must not change the gradients.
    assert all(torch.allclose(a, b) for a, b in zip(grads, reference))
    label = "(no checkpointing)" if per_segment is None else per_segment
    print(f"{label!s:21}{saved:>10.1f}{new:>9.1f}  {len(again)} of {LAYERS}: {again}")
    key = f"gm_ckpt_{per_segment or 'none'}"
    if per_segment:
        glue(f"{key}_layers", per_segment)
    glue(f"{key}_mib", saved)
    glue(f"{key}_new_mib", new)
    glue(f"{key}_recomputed", len(again))
print("gradients as without checkpointing: True (asserted)")
