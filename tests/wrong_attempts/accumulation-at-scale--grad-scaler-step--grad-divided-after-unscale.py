# expect: the losses were not divided by the number of micro-batches before backward()
# Each loss scaled undivided; the division by the number of micro-batches is done on .grad after unscale_,
# before clipping: the same numbers, with .grad edited between unscale_ and step.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    for parameter in model.parameters():
        parameter.grad /= len(micro_batches)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
