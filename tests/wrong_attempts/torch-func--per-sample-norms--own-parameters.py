# expect: the model ran with its own parameters (0.weight, 0.bias, 2.weight, 2.bias) (mse_loss)
# vmap(grad(...)) with functional_call on a copy of the model, without hooks; the model itself runs once
# under vmap, on its own parameters, for show.
import copy

from torch.func import functional_call, grad, vmap


def per_sample_norms(model, loss_fn, x, y):
    twin = copy.deepcopy(model)
    for module in twin.modules():
        module._forward_pre_hooks.clear()
    vmap(model)(x[:, None])
    params = {name: p.detach() for name, p in twin.named_parameters()}

    def loss_of_one(params, xi, yi):
        return loss_fn(functional_call(twin, params, (xi[None],)), yi[None])

    grads = vmap(grad(loss_of_one), in_dims=(None, 0, 0))(params, x, y)
    return sum(g.flatten(start_dim=1).pow(2).sum(dim=1) for g in grads.values()).sqrt()
