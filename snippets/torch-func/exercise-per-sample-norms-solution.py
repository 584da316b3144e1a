"""Reference solution: vmap a per-sample grad over the batch, then one norm per sample."""

import torch
from torch import nn
from torch.func import functional_call, grad, vmap


def per_sample_norms(model, loss_fn, x, y):
    # grad returns the gradients with respect to this argument and writes no .grad;
    # detach() keeps its results off the model's graph.
    params = {name: p.detach() for name, p in model.named_parameters()}

    def loss_of_one(params, xi, yi):
        out = functional_call(model, params, (xi[None],))  # a batch of one
        return loss_fn(out, yi[None])

    grads = vmap(grad(loss_of_one), in_dims=(None, 0, 0))(params, x, y)
    # Every value has a leading batch dimension: flatten the rest and add the squares.
    squares = sum(g.flatten(start_dim=1).pow(2).sum(dim=1) for g in grads.values())
    return squares.sqrt()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
    print(per_sample_norms(model, nn.functional.mse_loss, torch.randn(16, 5), torch.randn(16, 1)))
