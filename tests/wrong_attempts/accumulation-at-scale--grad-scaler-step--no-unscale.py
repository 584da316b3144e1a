# expect: scaler.unscale_ was not called once between the last backward() and scaler.step
# No unscale_: the scaled gradients clipped to max_norm times the scale, scaler.step left to unscale.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss / len(micro_batches)).backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm * scaler.get_scale())
    scaler.step(optimizer)
    scaler.update()
