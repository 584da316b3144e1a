# expect: the scale came from somewhere other than scaler.scale
# The scale written out: backward() on the loss times 65536, the scale a fresh GradScaler starts at,
# with scaler.scale called only so that its output is part of the graph.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaled = scaler.scale(loss / len(micro_batches))
        (loss / len(micro_batches) * 65536.0 + 0 * scaled).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
