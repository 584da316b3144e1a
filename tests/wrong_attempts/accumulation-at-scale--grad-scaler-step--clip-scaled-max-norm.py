# expect: the gradients were clipped before scaler.unscale_
# Clipping before unscale_, but to max_norm times the scale: the same numbers, without unscale_ before clipping.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss / len(micro_batches)).backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm * scaler.get_scale())
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
