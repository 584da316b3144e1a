# expect: the norms of a loss not computed from the model's output (mse_loss)
# torch.func.grad in a Python loop, no vmap: the layers are called one by one, so that the model's own
# run is a single extra call on one sample, and the loss never passes through the model's output.
import torch
from torch.func import functional_call, grad


def per_sample_norms(model, loss_fn, x, y):
    model(x[:1])
    params = {name: p.detach() for name, p in model.named_parameters()}

    def loss_of_one(params, xi, yi):
        h = xi[None]
        for name, layer in model.named_children():
            own = {key[len(name) + 1:]: value for key, value in params.items() if key.startswith(name + ".")}
            h = functional_call(layer, own, (h,))
        return loss_fn(h, yi[None])

    norms = [sum(g.pow(2).sum() for g in grad(loss_of_one)(params, xi, yi).values()).sqrt()
             for xi, yi in zip(x, y)]
    return torch.stack(norms)
