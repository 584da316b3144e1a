import inspect
import time

import torch
from torch import nn

from measured import TIMING, glue

LAYERS, WIDTH, BATCH = 8, 1024, 512
MIB = 2 ** 20

torch.manual_seed(0)
model = nn.Sequential(*[nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)])
x = torch.randn(BATCH, WIDTH)
parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}

offload = torch.autograd.graph.save_on_cpu()
packed = []  # (is a parameter, bytes, packed into the same storage)
inner_pack = offload.pack_hook


def counting_pack(tensor):
    device, kept = inner_pack(tensor)
    storage = tensor.untyped_storage()
    packed.append((storage.data_ptr() in parameters, storage.nbytes(),
                   kept.untyped_storage().data_ptr() == storage.data_ptr()))
    return device, kept


offload.pack_hook = counting_pack  # save_on_cpu's own packing, counted on the way through
with offload:
    loss = model(x).sum()
loss.backward()

weights = [n for is_parameter, n, _ in packed if is_parameter]
activations = [n for is_parameter, n, _ in packed if not is_parameter]
copied = [n for _, n, same in packed if not same]
print(f"packed by save_on_cpu: {len(packed)} tensors, {sum(n for _, n, _ in packed) / MIB:.1f} MiB")
print(f"  of them parameters (weights): {len(weights)}, {sum(weights) / MIB:.1f} MiB")
print(f"  activations and x: {len(activations)}, {sum(activations) / MIB:.1f} MiB")
print(f"copied to another place (the model is on the CPU): {len(copied)} tensors, {sum(copied) / MIB:.1f} MiB")
# What the pack hook does with each tensor: torch's own source, the lines that move data.
print("save_on_cpu's pack hook, the lines that copy:")
for line in inspect.getsource(inner_pack).splitlines():
    if ".cpu()" in line or "copy_(" in line:
        print("  " + line.strip())


def step(offloaded):
    model.zero_grad()
    start = time.perf_counter()
    if offloaded:
        with torch.autograd.graph.save_on_cpu():
            loss = model(x).sum()
    else:
        loss = model(x).sum()
    loss.backward()
    return time.perf_counter() - start


for offloaded in (False, True):
    step(offloaded)  # warm-up
seconds = {offloaded: min(step(offloaded) for _ in range(5)) for offloaded in (False, True)}
print(f"{TIMING} forward + backward {seconds[False] * 1e3:.1f} ms plain, {seconds[True] * 1e3:.1f} ms under save_on_cpu")
glue("gm_offload_packed", len(packed))
glue("gm_offload_packed_mib", sum(n for _, n, _ in packed) / MIB)
glue("gm_offload_weights", len(weights))
glue("gm_offload_weights_mib", sum(weights) / MIB)
glue("gm_offload_activations_mib", sum(activations) / MIB)
glue("gm_offload_copied_mib", sum(copied) / MIB)
glue("gm_offload_ratio", seconds[True] / seconds[False], varies=True)
