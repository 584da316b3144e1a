# expect: with 3 micro-batches the parameters moved differently
# The number of micro-batches written out as 4 instead of len(micro_batches).
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss / 4).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
