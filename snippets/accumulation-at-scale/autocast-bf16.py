import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.LayerNorm(32), nn.Linear(32, 4))
x, target = torch.randn(8, 16), torch.randint(0, 4, (8,))

dtypes = []  # (module, input dtype, output dtype), in the order the forward runs them
for name, module in model.named_children():
    module.register_forward_hook(
        lambda module, args, output, name=name:
        dtypes.append((f"{name}: {type(module).__name__}", args[0].dtype, output.dtype)))

with torch.autocast("cpu", dtype=torch.bfloat16):
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, target)
loss.backward()  # outside autocast: backward runs each op in the dtype its forward used

print(f"{'module':14}{'input':>16}{'output':>16}")
for name, seen_in, seen_out in dtypes:
    print(f"{name:14}{str(seen_in):>16}{str(seen_out):>16}")
print(f"{'cross_entropy':14}{str(logits.dtype):>16}{str(loss.dtype):>16}")
print("parameters:", sorted({str(p.dtype) for p in model.parameters()}))
print("gradients: ", sorted({str(p.grad.dtype) for p in model.parameters()}))
