# expect: the float16 backward did not run on the scaled loss
# scaler.scale is called and its result reached, but backward() runs on the loss divided back by the scale;
# .grad is multiplied by the scale afterwards so that unscale_ finds what it expects.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaled = scaler.scale(loss / len(micro_batches))
        (scaled / scaler.get_scale()).backward()
    for parameter in model.parameters():
        parameter.grad *= scaler.get_scale()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
