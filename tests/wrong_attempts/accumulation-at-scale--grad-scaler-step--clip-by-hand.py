# expect: clip_grad_norm_ did not measure and clip the unscaled gradient between scaler.unscale_
# No clip_grad_norm_: the norm is taken on the scaled .grad before unscale_, and after unscale_ .grad is
# multiplied by hand by min(1, max_norm * scale / that norm): the same numbers, the norm never measured unscaled.
import torch


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss / len(micro_batches)).backward()
    scaled_norm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
    scaler.unscale_(optimizer)
    coefficient = min(1.0, (max_norm * scaler.get_scale() / (scaled_norm + 1e-6)).item())
    for p in model.parameters():
        p.grad.mul_(coefficient)
    scaler.step(optimizer)
    scaler.update()
