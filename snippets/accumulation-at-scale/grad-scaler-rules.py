import copy

import torch
from torch import nn

from measured import glue

STEPS, MAX_NORM = 4, 1.0
SCALE = torch.amp.GradScaler("cpu").get_scale()  # the scale it starts with
torch.manual_seed(0)
initial = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))
x, y = torch.randn(64, 16), torch.randn(64, 1)


def accumulate(variant, x=x, model=None, scaler=None):
    """One accumulated step of STEPS micro-batches with autocast float16 and a GradScaler (a fresh
    copy of `initial` and a fresh GradScaler unless given). Returns the trained model, the norm
    clipping measured, the optimizer steps taken (a step the scaler skips is not taken), the
    scale it ends with, and how many .grad entries were inf or NaN just before the last step."""
    model = model or copy.deepcopy(initial)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    steps = []
    optimizer.register_step_post_hook(lambda optimizer, args, kwargs: steps.append(1))
    scaler = scaler or torch.amp.GradScaler("cpu")
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

def unscaled_non_finite(x):
    """.grad entries inf or NaN after micro-batch 2's backward in float16, its loss not scaled."""
    model = copy.deepcopy(initial)
    with torch.autocast("cpu", dtype=torch.float16):
        loss = nn.functional.mse_loss(model(x[16:32]), y[16:32])
    (loss / STEPS).backward()
    return sum((~p.grad.isfinite()).sum().item() for p in model.parameters())


def retries(x):
    """The same accumulated batch, again and again, with one model and one GradScaler, until a step
    is taken: the scales the skipped attempts ran at, and the scale of the one taken."""
    model, scaler, skipped = copy.deepcopy(initial), torch.amp.GradScaler("cpu"), []
    for _ in range(64):
        model.zero_grad()
        scale = scaler.get_scale()
        if accumulate("rules kept", x, model, scaler)[2]:
            return skipped, scale
        skipped.append(scale)
    raise RuntimeError(f"no step taken in {len(skipped)} attempts")


# Micro-batch 2's inputs 10 times too large: its backward overflows float16 only once scaled
FACTOR, DATA_FACTOR = 10, 1e4
spoiled = x.clone()
spoiled[16:32] *= FACTOR
print(f"micro-batch 2 with inputs {FACTOR} times too large (scale {SCALE:g} at the start):")
print(f"  {'its backward unscaled':24} .grad entries inf or NaN: {unscaled_non_finite(spoiled)}")
glue("scale_overflow_unscaled", unscaled_non_finite(spoiled))
for variant in ("rules kept", "step every micro-batch"):
    model, _, steps, scale, non_finite = accumulate(variant, spoiled)
    moved = largest_change(model, initial)
    print(f"  {variant:24} steps taken {steps}, moved {moved:.2e}, scale now {scale:g}")
    if variant == "rules kept":
        print(f"  {'':24} (.grad entries inf or NaN before scaler.step: {non_finite})")
        glue("scale_overflow_non_finite", non_finite)
        glue("scale_after_overflow", scale)
    glue(f"scale_overflow_steps_{variant.split()[0]}", steps)
skipped, taken = retries(spoiled)
print(f"  {'the same batch again':24} skipped at {', '.join(f'{s:g}' for s in skipped)}; taken at {taken:g}")
glue("scale_retry_skipped", len(skipped))
glue("scale_retry_taken", taken)

# Inputs 1e4 times too large: the backward overflows float16 with no scaling at all
spoiled = x.clone()
spoiled[16:32] *= DATA_FACTOR
print(f"micro-batch 2 with inputs {DATA_FACTOR:g} times too large:")
print(f"  {'its backward unscaled':24} .grad entries inf or NaN: {unscaled_non_finite(spoiled)}")
skipped, taken = retries(spoiled)
print(f"  {'the same batch again':24} {len(skipped)} skipped, from {skipped[0]:g} to {skipped[-1]:g}; "
      f"taken at {taken:g}")
glue("scale_data_unscaled", unscaled_non_finite(spoiled))
glue("scale_data_skipped", len(skipped))
glue("scale_data_taken", taken)
glue("scale_overflow_factor", FACTOR)
glue("scale_data_factor", DATA_FACTOR)
glue("scale_rules_ratio", round(norms["clip"] / norms["rules"]))
glue("scale_max_norm", MAX_NORM)
glue("scale_rules_steps", STEPS)
