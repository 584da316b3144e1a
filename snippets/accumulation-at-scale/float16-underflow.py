import torch
from torch import nn

from measured import glue

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))
x, y = torch.randn(512, 64), torch.randn(512, 1)
SCALE = torch.amp.GradScaler("cpu").get_scale()  # the scale a GradScaler starts with


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
            largest_zeroed = exact[zeroed].abs().max().item()
half = torch.finfo(torch.float16)
print(f"{exact.numel()} gradient entries; float16's smallest normal number "
      f"{half.smallest_normal:.1e}, smallest subnormal {half.smallest_normal * half.eps:.1e}")
print(f"largest float32 value among the entries float16 zeroed at loss / 64: {largest_zeroed:.1e}")
glue("scale_init", SCALE)
glue("scale_entries", exact.numel())
glue("scale_largest_zeroed", float(f"{largest_zeroed:.1e}"))
