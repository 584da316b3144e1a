import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

from measured import glue

LAYERS, WIDTH, BATCH = 8, 1024, 512
MIB = 2 ** 20

torch.manual_seed(0)
model = nn.Sequential(*[nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)])
x = torch.randn(BATCH, WIDTH)
held_anyway = {p.untyped_storage().data_ptr() for p in model.parameters()} | {x.data_ptr()}

# A pre-hook counts forward calls, including the recomputation that happens during backward.
forward_calls = []
for layer in model:
    layer.register_forward_pre_hook(lambda *args: forward_calls.append(1))


def run(per_segment):
    """Forward and backward; per_segment layers share one checkpoint (None: no checkpointing)."""
    model.zero_grad(set_to_none=True)
    forward_calls.clear()
    storages = {}

    def pack(tensor):
        storages[tensor.untyped_storage().data_ptr()] = tensor.untyped_storage().nbytes()
        return tensor.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed):
        if per_segment is None:
            out = model(x)
        else:
            out = x
            for start in range(0, LAYERS, per_segment):
                # Keeps the segment's input; what the segment saves is recomputed in backward.
                out = checkpoint(model[start:start + per_segment], out, use_reentrant=False)
    out.square().mean().backward()
    saved_mib = sum(storages.values()) / MIB
    new_mib = sum(n for ptr, n in storages.items() if ptr not in held_anyway) / MIB
    return saved_mib, new_mib, len(forward_calls) / LAYERS, [p.grad for p in model.parameters()]


print(f"{'layers per checkpoint':22}{'saved MiB':>10}{'new memory MiB':>16}{'forwards per layer':>20}")
for per_segment in (None, 1, 2, 4):
    saved_mib, new_mib, forwards, grads = run(per_segment)
    if per_segment is None:
        reference = grads
    assert all(torch.allclose(a, b) for a, b in zip(grads, reference))  # same gradients
    label = "- (no checkpointing)" if per_segment is None else str(per_segment)
    print(f"{label:22}{saved_mib:>10.1f}{new_mib:>16.1f}{forwards:>20g}")
    key = f"gm_ckpt_{per_segment or 'none'}"
    if per_segment:
        glue(f"{key}_layers", per_segment)
    glue(f"{key}_mib", saved_mib)
    glue(f"{key}_new_mib", new_mib)
    glue(f"{key}_forwards", forwards)
print("gradients equal to those without checkpointing: True (asserted)")
