# expect: grad differentiates more than the parameters passed to functional_call (mse_loss)
# One flat tensor holds the parameters and zero offsets added to each Linear's output; the model runs with
# views of it, and grad differentiates it alone. The norms come from the offsets' part of its gradient, by
# the identity |g aᵀ|² + |g|² = |g|² (|a|² + 1) of a Linear layer; the parameters' part is thrown away.
import torch
from torch import nn
from torch.func import functional_call, grad, vmap


def per_sample_norms(model, loss_fn, x, y):
    named = [(name, p.detach()) for name, p in model.named_parameters()]
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    sizes = [p.numel() for _, p in named] + [m.out_features for m in linears]
    flat = torch.cat([p.flatten() for _, p in named] + [torch.zeros(m.out_features) for m in linears])

    def loss_of_one(flat, xi, yi):
        pieces = flat.split(sizes)
        params = {name: piece.view(p.shape) for (name, p), piece in zip(named, pieces)}
        offsets = [piece.view(1, -1) for piece in pieces[len(named):]]
        inputs, handles = [], []
        for m, z in zip(linears, offsets):
            handles.append(m.register_forward_hook(lambda mod, args, out, z=z: (inputs.append(args[0]), out + z)[1]))
        try:
            out = functional_call(model, params, (xi[None],))
        finally:
            for handle in handles:
                handle.remove()
        return loss_fn(out, yi[None]), inputs

    g, inputs = vmap(grad(loss_of_one, has_aux=True), in_dims=(None, 0, 0))(flat, x, y)
    gs = g[:, sum(sizes[:len(named)]):].split(sizes[len(named):], dim=1)
    return sum(o.pow(2).sum(1) * (a.pow(2).sum((1, 2)) + 1) for o, a in zip(gs, inputs)).sqrt()
