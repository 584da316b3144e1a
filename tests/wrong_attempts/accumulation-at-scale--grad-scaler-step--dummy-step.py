# expect: optimizer.step() ran outside scaler.step
# scaler.step is handed a stand-in optimizer; the real one is stepped directly, skipped by hand on inf or NaN.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss / len(micro_batches)).backward()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    if all(torch.isfinite(p.grad).all() for p in model.parameters()):
        optimizer.step()
    stand_in = nn.Parameter(torch.zeros(1))
    stand_in.grad = torch.zeros(1)
    scaler.step(torch.optim.SGD([stand_in], lr=0.0))
    scaler.update()
