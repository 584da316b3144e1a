# expect: only part of the forward ran under float16 autocast
# Autocast for the first Linear only: a hook switches it off once that layer has run, and hands the
# rest of the model float32.
import torch
from torch import nn


def float32_from_here(module, args, output):
    torch.set_autocast_enabled("cpu", False)
    return output.float()


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    first = next(module for module in model.modules() if isinstance(module, nn.Linear))
    handle = first.register_forward_hook(float32_from_here)
    try:
        for x, y in micro_batches:
            with torch.autocast("cpu", dtype=torch.float16):
                loss = loss_fn(model(x), y)
            scaler.scale(loss / len(micro_batches)).backward()
    finally:
        handle.remove()
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
