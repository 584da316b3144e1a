import torch
from torch import nn

from measured import glue, saved_tensors

LAYERS, WIDTH, BATCH = 8, 1024, 512
MIB = 2 ** 20

torch.manual_seed(0)
linears = [nn.Linear(WIDTH, WIDTH) for _ in range(LAYERS)]
plain = nn.Sequential(*linears)
# The same layers with a ReLU between each pair.
with_relu = nn.Sequential(*[m for lin in linears
                            for m in (lin, nn.ReLU())][:-1])
x = torch.randn(BATCH, WIDTH)

print(f"{'model':14}{'hook calls':>11}{'MiB':>7}{'storages':>10}{'MiB':>7}")
for name, model in [("Linear", plain), ("Linear + ReLU", with_relu)]:
    with saved_tensors() as saved:
        model(x)
    print(f"{name:14}{saved.calls:>11}{saved.bytes / MIB:>7.1f}"
          f"{saved.storages:>10}{saved.storage_bytes / MIB:>7.1f}")
glue("gm_relu_count", sum(isinstance(m, nn.ReLU) for m in with_relu))
glue("gm_relu_calls", saved.calls)
glue("gm_relu_mib", saved.bytes / MIB)
glue("gm_relu_storages", saved.storages)
glue("gm_relu_storage_mib", saved.storage_bytes / MIB)

# ReLU saves its output, which is also the next Linear's input: saved twice.
out = with_relu[1](with_relu[0](x))
print("ReluBackward0 saved its own output:",
      out.grad_fn._saved_result.data_ptr() == out.data_ptr())
