# expect: the model did not run as functional_call(model, params, ...) runs it (mse_loss)
# vmap(grad(...)) with functional_call on an empty module, with an empty dict: its forward swaps the
# tensors grad differentiates into the model by hand. Right numbers, one run, a functional_call frame.
import torch
from torch import nn
from torch.func import functional_call, grad, vmap

class Swap(nn.Module):
    """Runs `model` with params swapped in by hand; functional_call is called on this empty shell only."""
    def forward(self, model, params, xi):
        saved = {}
        for name, t in params.items():
            mod_name, _, attr = name.rpartition(".")
            mod = model.get_submodule(mod_name)
            saved[name] = mod._parameters.pop(attr)
            setattr(mod, attr, t)
        try:
            return model(xi)
        finally:
            for name, p in saved.items():
                mod_name, _, attr = name.rpartition(".")
                mod = model.get_submodule(mod_name)
                delattr(mod, attr)
                mod._parameters[attr] = p

def per_sample_norms(model, loss_fn, x, y):
    params = {n: p.detach() for n, p in model.named_parameters()}
    shell = Swap()
    def one(params, xi, yi):
        return loss_fn(functional_call(shell, {}, (model, params, xi[None])), yi[None])
    g = vmap(grad(one), in_dims=(None, 0, 0))(params, x, y)
    return sum(t.flatten(1).pow(2).sum(1) for t in g.values()).sqrt()
