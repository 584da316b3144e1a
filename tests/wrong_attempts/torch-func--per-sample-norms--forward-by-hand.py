# expect: the norms of a loss not computed from the model's output (mse_loss)
# vmap(grad(...)) with the model run through functional_call for show, its output thrown away; the loss
# comes from a forward written out by hand over the same parameters, in the same transforms.
import torch
from torch.func import functional_call, grad, vmap


def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}

    def by_hand(params, xi):
        h = xi[None]
        for name, layer in model.named_children():
            if isinstance(layer, torch.nn.Linear):
                h = torch.nn.functional.linear(h, params[name + ".weight"], params[name + ".bias"])
            else:
                h = torch.tanh(h)
        return h

    def loss_of_one(params, xi, yi):
        functional_call(model, params, (xi[None],))
        return loss_fn(by_hand(params, xi), yi[None])

    grads = vmap(grad(loss_of_one), in_dims=(None, 0, 0))(params, x, y)
    return sum(g.flatten(start_dim=1).pow(2).sum(dim=1) for g in grads.values()).sqrt()
