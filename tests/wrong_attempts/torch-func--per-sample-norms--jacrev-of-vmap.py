# expect: the loss was differentiated outside vmap, not by grad inside it (mse_loss)
# jacrev of the vector of per-sample losses, the losses computed by vmap over a one-sample loss: the
# model runs once, under vmap, on one sample, with functional_call, and torch.func runs one backward
# pass, but it is jacrev (reverse mode over the whole vector of losses) that differentiates, not grad.
import torch
from torch.func import functional_call, jacrev, vmap


def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}

    def loss_of_one(params, xi, yi):
        return loss_fn(functional_call(model, params, (xi[None],)), yi[None])

    def losses(params):
        return vmap(loss_of_one, in_dims=(None, 0, 0))(params, x, y)

    rows = jacrev(losses)(params)
    return torch.sqrt(sum(row.flatten(start_dim=1).pow(2).sum(dim=1) for row in rows.values()))
