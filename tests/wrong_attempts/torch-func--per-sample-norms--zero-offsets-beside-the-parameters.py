# expect: grad differentiates more than the parameters passed to functional_call (mse_loss)
# grad differentiates the parameters and zero offsets added to each Linear's output (argnums=(0, 1)); the
# parameters' per-sample gradients are thrown away, and the norms come from the identity
# |g aᵀ|² + |g|² = |g|² (|a|² + 1) of a Linear layer, the offsets' gradients g and the activations a (aux).
import torch
from torch import nn
from torch.func import functional_call, grad, vmap


def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]

    def loss_of_one(params, offsets, xi, yi):
        inputs, handles = [], []
        for m, z in zip(linears, offsets):
            handles.append(m.register_forward_hook(lambda mod, args, out, z=z: (inputs.append(args[0]), out + z)[1]))
        try:
            out = functional_call(model, params, (xi[None],))
        finally:
            for handle in handles:
                handle.remove()
        return loss_fn(out, yi[None]), inputs

    offsets = [torch.zeros(1, m.out_features) for m in linears]
    (_, gs), inputs = vmap(grad(loss_of_one, argnums=(0, 1), has_aux=True),
                           in_dims=(None, None, 0, 0))(params, offsets, x, y)
    return sum(g.pow(2).sum((1, 2)) * (a.pow(2).sum((1, 2)) + 1) for g, a in zip(gs, inputs)).sqrt()
