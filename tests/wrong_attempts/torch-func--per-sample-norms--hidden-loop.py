# expect: per_sample_norms ran 16 backward passes itself
# A vmap(grad(...)) run for show, its result thrown away; the numbers come from a loop of backward
# passes on a copy of the model without the judge's hooks, through the function under whatever
# wraps torch.autograd.grad (__wrapped__), so that neither the model's hooks nor a wrapper see the loop.
import copy

import torch
from torch.func import functional_call, grad, vmap


def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}

    def loss_of_one(params, xi, yi):
        return loss_fn(functional_call(model, params, (xi[None],)), yi[None])

    vmap(grad(loss_of_one), in_dims=(None, 0, 0))(params, x, y)
    twin = copy.deepcopy(model)
    for module in twin.modules():
        module._forward_pre_hooks.clear()
    unseen = getattr(torch.autograd.grad, "__wrapped__", torch.autograd.grad)
    norms = []
    for xi, yi in zip(x, y):
        grads = unseen(loss_fn(twin(xi[None]), yi[None]), list(twin.parameters()))
        norms.append(torch.sqrt(sum(g.pow(2).sum() for g in grads)))
    return torch.stack(norms).detach()
