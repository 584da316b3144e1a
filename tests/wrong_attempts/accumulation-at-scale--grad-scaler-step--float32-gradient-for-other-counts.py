# expect: the step was not made from the gradient the float16 backward passes left
# The method for 4 micro-batches, the count the judge starts with; for any other count, when the
# gradients are finite, .grad is overwritten after unscale_ by a float32 gradient of the whole batch,
# taken with torch.func on a copy without the judge's hooks.
import copy

import torch
from torch import nn
from torch.func import functional_call, grad


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss / len(micro_batches)).backward()
    scaler.unscale_(optimizer)
    if len(micro_batches) != 4 and all(torch.isfinite(p.grad).all() for p in model.parameters()):
        twin = copy.deepcopy(model)
        for module in twin.modules():
            module._forward_pre_hooks.clear()
            module._forward_hooks.clear()
        params = {name: p.detach() for name, p in twin.named_parameters()}
        x = torch.cat([x for x, _ in micro_batches])
        y = torch.cat([y for _, y in micro_batches])
        g = grad(lambda p: nn.functional.mse_loss(functional_call(twin, p, (x,)), y))(params)
        for name, p in model.named_parameters():
            p.grad.copy_(g[name])
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
