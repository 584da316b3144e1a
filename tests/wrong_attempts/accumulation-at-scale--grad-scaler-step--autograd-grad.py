# expect: torch.autograd.grad returns the gradients and leaves .grad alone
# torch.autograd.grad on each scaled loss instead of backward(), its gradients added into .grad by hand:
# the same numbers, reached without the accumulation backward() does.
import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    params = list(model.parameters())
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        grads = torch.autograd.grad(scaler.scale(loss / len(micro_batches)), params)
        for p, g in zip(params, grads):
            p.grad = g.clone() if p.grad is None else p.grad + g
    scaler.unscale_(optimizer)
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
