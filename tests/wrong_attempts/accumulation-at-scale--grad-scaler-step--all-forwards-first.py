# expect: forward, backward(), forward, backward(), forward, backward(), forward, backward()
# Every forward first, then one scaled backward() per loss: the numbers are right, but all the
# micro-batches' graphs are alive at once, the memory of the whole batch that accumulation saves.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    losses = []
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            losses.append(loss_fn(model(x), y))
    for loss in losses:
        scaler.scale(loss / len(micro_batches)).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
