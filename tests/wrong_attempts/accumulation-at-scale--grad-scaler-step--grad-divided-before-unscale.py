# expect: the losses were not divided by the number of micro-batches before backward()
# Each loss scaled undivided; the summed scaled .grad is divided by the number of micro-batches just
# before unscale_, where unscale_ finds the norm it expects.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
    for parameter in model.parameters():
        parameter.grad /= len(micro_batches)
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
