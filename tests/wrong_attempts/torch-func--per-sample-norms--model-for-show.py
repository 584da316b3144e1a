# expect: loss_fn ran in other torch.func transforms than the model's one run (mse_loss)
# vmap(grad(...)) with functional_call on a copy of the model without the judge's hooks; the model itself
# runs once, under vmap, with functional_call, for show, and no loss is computed from that run.
import copy

from torch.func import functional_call, grad, vmap


def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}
    vmap(lambda xi: functional_call(model, params, (xi[None],)))(x)
    twin = copy.deepcopy(model)
    for module in twin.modules():
        module._forward_pre_hooks.clear()

    def loss_of_one(params, xi, yi):
        return loss_fn(functional_call(twin, params, (xi[None],)), yi[None])

    grads = vmap(grad(loss_of_one), in_dims=(None, 0, 0))(params, x, y)
    return sum(g.flatten(start_dim=1).pow(2).sum(dim=1) for g in grads.values()).sqrt()
