# expect: the loss was differentiated in forward mode (jvp, jacfwd or torch.autograd.forward_ad), not by grad (mse_loss)
# jacfwd does the differentiating; a dummy grad inside it, whose aux is the loss, supplies torch.func's one
# backward pass and makes grad the innermost transform around the loss.
import torch
from torch.func import functional_call, grad, jacfwd, vmap


def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}

    def loss_of_one(params, xi, yi):
        def inner(dummy):
            out = functional_call(model, params, (xi[None],))
            loss = loss_fn(out, yi[None])
            return (dummy * 0).sum(), loss
        _, loss = grad(inner, has_aux=True)(torch.zeros(()))
        return loss

    grads = vmap(jacfwd(loss_of_one), in_dims=(None, 0, 0))(params, x, y)
    squares = sum(g.flatten(start_dim=1).pow(2).sum(dim=1) for g in grads.values())
    return squares.sqrt()
