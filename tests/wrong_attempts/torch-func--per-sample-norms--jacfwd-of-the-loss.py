# expect: the loss was differentiated in forward mode (jvp, jacfwd or torch.autograd.forward_ad), not by grad (mse_loss)
# The loss_fn passed in, differentiated in forward mode: vmap(jacfwd(...)) on a hook-free copy of the
# model; a vmap(grad(...)) of the model's output alone, for show, runs the model and the one backward pass.
import copy

import torch
from torch.func import functional_call, grad, jacfwd, vmap


def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}
    vmap(grad(lambda p, xi: functional_call(model, p, (xi[None],)).sum()), in_dims=(None, 0))(params, x)
    twin = copy.deepcopy(model)
    for module in twin.modules():
        module._forward_pre_hooks.clear()

    def loss_of_one(params, xi, yi):
        return loss_fn(functional_call(twin, params, (xi[None],)), yi[None])

    grads = vmap(jacfwd(loss_of_one), in_dims=(None, 0, 0))(params, x, y)
    return sum(g.flatten(start_dim=1).pow(2).sum(dim=1) for g in grads.values()).sqrt()
