# expect: the model ran on 16 samples at once, not under vmap (mse_loss)
# jacrev of the vector of per-sample losses, from one forward over the whole batch: right numbers, one
# backward pass by torch.func, but no grad of a one-sample loss mapped by vmap.
import torch
from torch.func import functional_call, jacrev


def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}

    def losses(params):
        out = functional_call(model, params, (x,))
        return torch.stack([loss_fn(out[i:i + 1], y[i:i + 1]) for i in range(len(x))])

    rows = jacrev(losses)(params)
    return torch.sqrt(sum(row.flatten(start_dim=1).pow(2).sum(dim=1) for row in rows.values()))
