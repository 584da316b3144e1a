# expect: after the overflow, the step was not skipped by scaler.step and the scale not halved by
# The overflow found by hand: on an inf or NaN in .grad, no unscale_ and no scaler.step, the scale
# halved through update(new_scale); the scaler never sees the inf, and the outcome is the same.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss / len(micro_batches)).backward()
    if not all(torch.isfinite(p.grad).all() for p in model.parameters()):
        scaler.update(scaler.get_scale() / 2)
        optimizer.zero_grad()
        return
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
