import torch
from torch import nn

from measured import glue

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))
x, y = torch.randn(512, 64), torch.randn(512, 1)
SCALE = torch.amp.GradScaler("cpu").get_scale()  # the scale a GradScaler starts with

seen = {}  # Linear index -> [its input, the gradient at its output], in the last run


def keep(index):
    def hook(module, args, output):
        seen[index] = [args[0]]
        output.register_hook(lambda grad: seen[index].append(grad))
    return hook


for index in (0, 2, 4):
    model[index].register_forward_hook(keep(index))


def gradient(dtype, steps, scaler=None):
    """The gradient of one micro-batch loss divided by `steps`, computed under autocast in
    `dtype` (None: plain float32), and through `scaler` if one is given: scale the loss,
    backward, then unscale_ (which divides .grad by the scale again)."""
    model.zero_grad()
    with torch.autocast("cpu", dtype=dtype or torch.float32, enabled=dtype is not None):
        loss = nn.functional.mse_loss(model(x), y)
    if scaler is None:
        (loss / steps).backward()
    else:
        scaler.scale(loss / steps).backward()
        scaler.unscale_(torch.optim.SGD(model.parameters(), lr=0.1))
    return torch.cat([p.grad.flatten() for p in model.parameters()])


runs = {"float16": torch.float16, "float16 + GradScaler": torch.float16, "bfloat16": torch.bfloat16}
print(f"{'loss divided by':16}{'run':22}{'entries zeroed':>15}{'subnormal':>11}{'relative error':>16}")
for steps in (1, 8, 64):
    exact = gradient(None, steps)
    float32_seen = {index: grad for index, (_, grad) in seen.items()}
    for label, dtype in runs.items():
        scaler = torch.amp.GradScaler("cpu") if "GradScaler" in label else None
        found = gradient(dtype, steps, scaler)
        zeroed = (found == 0) & (exact != 0)  # float32 has a value, this run 0
        # what the backward held in `dtype`: .grad times the scale the scaler divided out
        held = found * (SCALE if scaler else 1.0)
        subnormal = ((held != 0) & (held.abs() < torch.finfo(dtype).smallest_normal)).sum().item()
        error = ((found - exact).norm() / exact.norm()).item()
        print(f"{steps:<16}{label:22}{zeroed.sum().item():>15}{subnormal:>11}{error:>16.2e}")
        key = label.split()[0] + ("_scaled" if scaler else "")
        glue(f"scale_zeroed_{key}_{steps}", zeroed.sum().item())
        glue(f"scale_subnormal_{key}_{steps}", subnormal)
        glue(f"scale_error_{key}_{steps}", float(f"{error:.2e}"))
        if label == "float16" and steps == 64:
            lost = zeroed.clone()
            largest_zeroed = exact[zeroed].abs().max().item()
            # 0 by its own size: float16 rounds its float32 value to 0 (below half the smallest subnormal)
            own = zeroed & (exact.half() == 0)
            half_seen = {index: (inputs.half(), grad, float32_seen[index]) for index, (inputs, grad) in seen.items()}

# Each weight entry (i, j) of a Linear is a sum over the rows of (gradient at output i) x (input j),
# each bias entry i a sum of gradients at output i. The float16 backward adds the terms as float16 left
# them (the sum itself in float32) and rounds the sum to float16: recompute that sum.
recomputed = []
for index in (0, 2, 4):
    inputs, grad, _ = half_seen[index]
    recomputed += [grad.float().T @ inputs.float(), grad.float().sum(0)]
recomputed = torch.cat([entries.flatten() for entries in recomputed])
rest = lost & ~own
half = torch.finfo(torch.float16)
print(f"{exact.numel()} gradient entries; float16's smallest normal number {half.smallest_normal:.1e}, "
      f"smallest subnormal {half.smallest_normal * half.eps:.1e}, half of it {half.smallest_normal * half.eps / 2:.1e}")
print(f"the {lost.sum().item()} entries float16 zeroed at loss / 64: {own.sum().item()} below half its smallest "
      f"subnormal in float32 too; the other {rest.sum().item()}, up to {largest_zeroed:.1e}, "
      f"{(rest & (recomputed.abs() <= 2.0**-25)).sum().item()} of them summed from float16 terms to at most half "
      f"the smallest subnormal")
glue("scale_init", SCALE)
glue("scale_entries", exact.numel())
glue("scale_largest_zeroed", float(f"{largest_zeroed:.1e}"))
glue("scale_zeroed_own", own.sum().item())
glue("scale_zeroed_rest", rest.sum().item())
glue("scale_zeroed_summed", (rest & (recomputed.abs() <= 2.0**-25)).sum().item())
