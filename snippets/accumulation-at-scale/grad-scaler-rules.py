import copy

import torch
from torch import nn

from measured import glue

STEPS, MAX_NORM = 4, 1.0
SCALE = torch.amp.GradScaler("cpu").get_scale()  # the scale it starts with
torch.manual_seed(0)
initial = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))
x, y = torch.randn(64, 16), torch.randn(64, 1)


def accumulate(variant, x=x):
    """One accumulated step of STEPS micro-batches with autocast float16 and a GradScaler.
    Returns the trained model, the norm clipping measured, the optimizer steps taken (a step
    the scaler skips is not taken), the scale it ends with, and how many .grad entries were
    inf or NaN just before the last step."""
    model = copy.deepcopy(initial)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    steps = []
    optimizer.register_step_post_hook(lambda optimizer, args, kwargs: steps.append(1))
    scaler = torch.amp.GradScaler("cpu")
    norm = None
    for i, (xb, yb) in enumerate(zip(x.chunk(STEPS), y.chunk(STEPS)), start=1):
        with torch.autocast("cpu", dtype=torch.float16):
            loss = nn.functional.mse_loss(model(xb), yb)
        scaler.scale(loss / STEPS).backward()  # rule 1: scale every micro-batch loss
        if variant == "update every micro-batch":
            try:
                scaler.update()
            except AssertionError as error:
                raise AssertionError(f"at micro-batch {i}: {error}") from None
        if variant == "step every micro-batch":
            scaler.unscale_(optimizer)
            norm = nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
    non_finite = sum((~p.grad.isfinite()).sum().item() for p in model.parameters() if p.grad is not None)
    if variant != "step every micro-batch":
        if variant == "clip before unscale_":
            norm = nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
            scaler.unscale_(optimizer)
        else:
            scaler.unscale_(optimizer)  # rule 2: unscale_ before clipping
            norm = nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM)
        scaler.step(optimizer)  # rule 3: one step and one update per accumulated batch
        scaler.update()
    return model, norm.item(), len(steps), scaler.get_scale(), non_finite


def largest_change(a, b):
    return max((p - q).abs().max().item() for p, q in zip(a.parameters(), b.parameters()))


right, *_ = accumulate("rules kept")
norms = {}
print(f"{'variant':26}{'norm clipped':>14}{'steps':>7}{'moved':>10}{'off by':>10}")
for variant in ("rules kept", "clip before unscale_", "step every micro-batch", "update every micro-batch"):
    try:
        model, norm, steps, scale, _ = accumulate(variant)
    except AssertionError as error:
        print(f"{variant:26}AssertionError: {error}")
        continue
    moved, off = largest_change(model, initial), largest_change(model, right)
    print(f"{variant:26}{norm:>14.4g}{steps:>7}{moved:>10.2e}{off:>10.2e}")
    key = variant.split()[0]
    norms[key] = norm
    glue(f"scale_rules_norm_{key}", float(f"{norm:.4g}"))
    glue(f"scale_rules_moved_{key}", float(f"{moved:.2e}"))
    glue(f"scale_rules_steps_{key}", steps)

# One micro-batch whose scaled gradient overflows float16 (its inputs 1e4 times too large)
spoiled = x.clone()
spoiled[16:32] *= 1e4
print(f"micro-batch 2 overflows float16 (scale {SCALE:g} at the start):")
for variant in ("rules kept", "step every micro-batch"):
    model, _, steps, scale, non_finite = accumulate(variant, spoiled)
    moved = largest_change(model, initial)
    print(f"  {variant:24} steps taken {steps}, moved {moved:.2e}, scale now {scale:g}")
    if variant == "rules kept":
        print(f"  {'':24} (.grad entries inf or NaN before scaler.step: {non_finite})")
        glue("scale_overflow_non_finite", non_finite)
    glue(f"scale_overflow_steps_{variant.split()[0]}", steps)
glue("scale_after_overflow", scale)
glue("scale_rules_ratio", round(norms["clip"] / norms["rules"]))
glue("scale_max_norm", MAX_NORM)
glue("scale_rules_steps", STEPS)
