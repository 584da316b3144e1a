# expect: the model ran 16 times: vmap runs it once over the whole batch
# torch.func.grad, but in a Python loop over the samples instead of vmap.
import torch
from torch.func import functional_call, grad


def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}

    def loss_of_one(params, xi, yi):
        return loss_fn(functional_call(model, params, (xi[None],)), yi[None])

    norms = []
    for xi, yi in zip(x, y):
        grads = grad(loss_of_one)(params, xi, yi)
        norms.append(torch.sqrt(sum(g.pow(2).sum() for g in grads.values())))
    return torch.stack(norms)
