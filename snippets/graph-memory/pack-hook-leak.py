import gc
import weakref

import torch
from torch import nn

from measured import glue

LAYERS, WIDTH, CALLS = 8, 1024, 5
BATCH = 128  # a smaller batch than before keeps this quick; the counts do not depend on it
MIB = 2 ** 20
glue("gm_leak_calls", CALLS)
glue("gm_leak_batch", BATCH)

torch.manual_seed(0)
linears = [nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)]
plain = nn.Sequential(*linears)
with_relu = nn.Sequential(*[m for linear in linears for m in (linear, nn.ReLU())][:-1])
parameters = {p.untyped_storage().data_ptr() for p in plain.parameters()}


def still_alive(model, detach, backward):
    """Run CALLS forwards whose outputs are thrown away; count the packed tensors still alive."""
    packed = []  # weak references only: they do not keep anything alive themselves

    def pack(tensor):
        kept = tensor.detach() if detach else tensor
        packed.append(weakref.ref(kept))
        return kept

    for _ in range(CALLS):
        x = torch.randn(BATCH, WIDTH)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda kept: kept):
            out = model(x)
        if backward:
            out.sum().backward()
        del out, x  # the caller keeps nothing
    gc.collect()  # cycles that Python can see are gone after this
    alive = [t for t in (ref() for ref in packed) if t is not None]
    storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes() for t in alive}
    activation_mib = sum(n for ptr, n in storages.items() if ptr not in parameters) / MIB
    return len(packed), len(alive), activation_mib


print(f"{'model':15}{'pack returns':14}{'backward':10}{'packed':>7}{'alive':>7}{'alive MiB':>11}")
for name, model, detach, backward, key in [
        ("Linear", plain, False, False, "plain_t"),
        ("Linear + ReLU", with_relu, False, False, "relu_t"),
        ("Linear + ReLU", with_relu, False, True, "relu_t_backward"),
        ("Linear + ReLU", with_relu, True, False, "relu_detach")]:
    packed, alive, mib = still_alive(model, detach, backward)
    print(f"{name:15}{'t.detach()' if detach else 't':14}{'yes' if backward else 'no':10}"
          f"{packed:>7}{alive:>7}{mib:>11.1f}")
    glue(f"gm_leak_{key}_packed", packed)
    glue(f"gm_leak_{key}_alive", alive)
    glue(f"gm_leak_{key}_mib", mib)
    if key == "relu_t":
        glue("gm_leak_alive_per_call", alive // CALLS)
        glue("gm_leak_mib_per_call", mib / CALLS)
glue("gm_leak_per_call", packed // CALLS)

# Why: ReLU saves its own output, and a saved output that is `t` itself points back at its node.
out = with_relu[1](with_relu[0](torch.randn(2, WIDTH)))
print("the ReLU output's grad_fn:", out.grad_fn.name(), "| that node saved the output itself:",
      out.grad_fn._saved_result.data_ptr() == out.data_ptr())
