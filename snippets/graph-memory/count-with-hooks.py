import torch
from torch import nn

from measured import glue

LAYERS, WIDTH, BATCH = 8, 1024, 512
MIB = 2 ** 20
glue("gm_layers", LAYERS)
glue("gm_width", WIDTH)
glue("gm_batch", BATCH)


def count_saved(x_requires_grad):
    calls, nbytes = 0, 0

    def pack(tensor):  # called once for every tensor saved for backward
        nonlocal calls, nbytes
        calls += 1
        nbytes += tensor.numel() * tensor.element_size()
        # Why not `tensor` itself: see the last section of the chapter.
        return tensor.detach()

    def unpack(packed):  # backward calls this to get the tensor back
        return packed

    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)])
    x = torch.randn(BATCH, WIDTH, requires_grad=x_requires_grad)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        model(x)  # forward only: we count what it saved
    return calls, nbytes / MIB, model


for x_requires_grad, key in [(False, "gm_saved"), (True, "gm_saved_xgrad")]:
    calls, mib, model = count_saved(x_requires_grad)
    print(f"x.requires_grad={x_requires_grad!s:5}  "
          f"saved: {calls} tensors, {mib:.1f} MiB")
    glue(f"{key}_calls", calls)
    glue(f"{key}_mib", mib)

params = sum(p.numel() * p.element_size() for p in model.parameters()) / MIB
print(f"parameters (float32):   {params:.1f} MiB")
glue("gm_params_mib", params)
