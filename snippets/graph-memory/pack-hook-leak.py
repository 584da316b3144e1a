import gc
import weakref

import torch
from torch import nn

from measured import glue

LAYERS, WIDTH, CALLS = 8, 1024, 5
BATCH = 128  # smaller than before, to keep this quick; counts do not change
MIB = 2 ** 20
glue("gm_leak_calls", CALLS)
glue("gm_leak_batch", BATCH)

torch.manual_seed(0)
linears = [nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)]
plain = nn.Sequential(*linears)
with_relu = nn.Sequential(*[m for lin in linears
                            for m in (lin, nn.ReLU())][:-1])
parameters = {p.untyped_storage().data_ptr() for p in plain.parameters()}


def still_alive(model, detach, backward):
    """Run CALLS forwards and drop their outputs; then count the packed
    tensors that are still alive, and their MiB beyond the parameters."""
    packed = []  # weak references: they keep nothing alive themselves

    def pack(tensor):
        kept = tensor.detach() if detach else tensor
        packed.append(weakref.ref(kept))
        return kept

    for _ in range(CALLS):
        x = torch.randn(BATCH, WIDTH)
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = model(x)
        if backward:
            out.sum().backward()
        del out, x  # the caller keeps nothing
    gc.collect()  # frees every cycle that Python's collector can see
    alive = [t for t in (ref() for ref in packed) if t is not None]
    storages = {t.untyped_storage().data_ptr(): t.untyped_storage().nbytes()
                for t in alive}
    mib = sum(n for a, n in storages.items() if a not in parameters) / MIB
    return len(packed), len(alive), mib


print("model          returns     backward  packed  alive  alive MiB")
for name, model, detach, backward, key in [
        ("Linear", plain, False, False, "plain_t"),
        ("Linear + ReLU", with_relu, False, False, "relu_t"),
        ("Linear + ReLU", with_relu, False, True, "relu_t_backward"),
        ("Linear + ReLU", with_relu, True, False, "relu_detach")]:
    packed, alive, mib = still_alive(model, detach, backward)
    returns = "t.detach()" if detach else "t"
    print(f"{name:15}{returns:12}{'yes' if backward else 'no':8}"
          f"{packed:>8}{alive:>7}{mib:>11.1f}")
    glue(f"gm_leak_{key}_packed", packed)
    glue(f"gm_leak_{key}_alive", alive)
    glue(f"gm_leak_{key}_mib", mib)
    if key == "relu_t":
        glue("gm_leak_alive_per_call", alive // CALLS)
        glue("gm_leak_mib_per_call", mib / CALLS)
glue("gm_leak_per_call", packed // CALLS)

# Why: ReLU saves its own output, and that output's grad_fn is the very node
# that saved it. Return `t` itself and the two hold each other.
out = with_relu[1](with_relu[0](torch.randn(2, WIDTH)))
print("ReLU output's grad_fn:", out.grad_fn.name(),
      "| it saved that output:",
      out.grad_fn._saved_result.data_ptr() == out.data_ptr())
