# expect: the scale came from somewhere other than scaler.scale, or the division was left for .grad
# The loss divided before backward() only for 4 micro-batches, the count the judge starts with; for any
# other count the division is done on .grad after unscale_.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    divide_first = len(micro_batches) == 4
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss / len(micro_batches) if divide_first else loss).backward()
    scaler.unscale_(optimizer)
    if not divide_first:
        for parameter in model.parameters():
            parameter.grad /= len(micro_batches)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
