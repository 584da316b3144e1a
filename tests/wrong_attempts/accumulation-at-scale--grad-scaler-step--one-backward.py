# expect: expected one backward() per micro-batch, on its own scaled loss
# Every micro-batch scaled, but one backward() on their sum: all the graphs are alive at once.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    total = 0
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        total = total + scaler.scale(loss / len(micro_batches))
    total.backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
