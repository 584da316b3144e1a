# expect: the forward did not run under float16 autocast
# The scaler's calls all in place, but the forward in float32: nothing can underflow or overflow float16.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        loss = loss_fn(model(x), y)
        scaler.scale(loss / len(micro_batches)).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
