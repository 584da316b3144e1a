import torch
from torch import nn

from measured import glue

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 1))
x, y = torch.randn(512, 64), torch.randn(512, 1)
SCALE = torch.amp.GradScaler("cpu").get_scale()  # the scaler's starting scale


def gradient(dtype, steps, scale=1.0):
    """The gradient of one micro-batch loss divided by `steps`, computed under autocast in
    `dtype` (None: plain float32), with the loss multiplied by `scale` and the gradient divided
    by it again, as GradScaler does."""
    model.zero_grad()
    with torch.autocast("cpu", dtype=dtype or torch.float32, enabled=dtype is not None):
        loss = nn.functional.mse_loss(model(x), y)
    (loss / steps * scale).backward()
    return torch.cat([p.grad.flatten() for p in model.parameters()]) / scale


runs = {"float16": (torch.float16, 1.0), f"float16, scaled by {SCALE:g}": (torch.float16, SCALE),
        "bfloat16": (torch.bfloat16, 1.0)}
print(f"{'loss divided by':16}{'run':28}{'entries zeroed':>15}{'relative error':>16}")
for steps in (1, 8, 64):
    exact = gradient(None, steps)
    for label, (dtype, scale) in runs.items():
        found = gradient(dtype, steps, scale)
        zeroed = ((found == 0) & (exact != 0)).sum().item()  # float32 has a value, this run 0
        error = ((found - exact).norm() / exact.norm()).item()
        print(f"{steps:<16}{label:28}{zeroed:>15}{error:>16.2e}")
        key = label.split(",")[0] + ("_scaled" if scale != 1.0 else "")
        glue(f"scale_zeroed_{key}_{steps}", zeroed)
        glue(f"scale_error_{key}_{steps}", float(f"{error:.2e}"))
half = torch.finfo(torch.float16)
print(f"{exact.numel()} gradient entries; float16's smallest normal number "
      f"{half.smallest_normal:.1e}, smallest subnormal {half.smallest_normal * half.eps:.1e}")
glue("scale_init", SCALE)
glue("scale_entries", exact.numel())
