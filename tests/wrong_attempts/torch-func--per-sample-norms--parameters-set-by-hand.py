# expect: the model did not run as functional_call(model, params, ...) runs it (mse_loss)
# vmap(grad(...)) without functional_call: a copy of the model (its hooks come along) whose Parameters are
# deleted and replaced by hand, in every call, with the tensors grad differentiates. Right numbers, one run.
import copy

from torch.func import grad, vmap


def per_sample_norms(model, loss_fn, x, y):
    twin = copy.deepcopy(model)
    names = [name for name, _ in twin.named_parameters()]
    for name in names:
        owner, _, leaf = name.rpartition(".")
        delattr(twin.get_submodule(owner), leaf)
    params = {name: p.detach() for name, p in model.named_parameters()}

    def loss_of_one(params, xi, yi):
        for name, tensor in params.items():
            owner, _, leaf = name.rpartition(".")
            setattr(twin.get_submodule(owner), leaf, tensor)
        return loss_fn(twin(xi[None]), yi[None])

    grads = vmap(grad(loss_of_one), in_dims=(None, 0, 0))(params, x, y)
    return sum(g.flatten(start_dim=1).pow(2).sum(dim=1) for g in grads.values()).sqrt()
