# expect: the norms of mse_loss itself, not of the loss_fn passed in
# vmap(grad(...)) on the model for show, its result thrown away; the numbers come from jacfwd, on a copy of
# the model without the judge's hooks, of a loss function found by the name of the one passed in.
import copy

import torch
from torch import nn
from torch.func import functional_call, grad, jacfwd, vmap


def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}

    def loss_of_one(params, xi, yi):
        return loss_fn(functional_call(model, params, (xi[None],)), yi[None])

    vmap(grad(loss_of_one), in_dims=(None, 0, 0))(params, x, y)  # for show
    twin = copy.deepcopy(model)
    for module in twin.modules():
        module._forward_pre_hooks.clear()
    real = getattr(nn.functional, loss_fn.__name__)

    def losses(params):
        out = functional_call(twin, params, (x,))
        return torch.stack([real(out[i:i + 1], y[i:i + 1]) for i in range(len(x))])

    rows = jacfwd(losses)(params)
    return torch.sqrt(sum(row.flatten(start_dim=1).pow(2).sum(dim=1) for row in rows.values()))
