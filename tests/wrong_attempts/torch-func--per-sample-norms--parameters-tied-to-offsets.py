# expect: the model ran with parameters that grad does not differentiate (0.weight, 0.bias, 2.weight, 2.bias) (mse_loss)
# grad differentiates zero offsets added to each Linear's output (the ghost-norm trick), not the parameters;
# the parameters passed to functional_call are made to depend on the offsets by "+ 0 * offset", so they are
# grad-tracked and require grad at grad's level, yet no pass differentiates them: no per-parameter gradient is
# ever formed, and the norms come from |g aᵀ|² + |g|² = |g|² (|a|² + 1) of a Linear layer.
import torch
from torch import nn
from torch.func import functional_call, grad, vmap
def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}
    linears = [m for m in model.modules() if isinstance(m, nn.Linear)]
    def loss_of_one(offsets, params, xi, yi):
        tie = 0 * offsets[0].sum()
        tied = {n: p + tie for n, p in params.items()}
        inputs, handles = [], []
        for m, z in zip(linears, offsets):
            handles.append(m.register_forward_hook(lambda mod, args, out, z=z: (inputs.append(args[0]), out + z)[1]))
        try:
            out = functional_call(model, tied, (xi[None],))
        finally:
            for handle in handles:
                handle.remove()
        return loss_fn(out, yi[None]), inputs
    offsets = [torch.zeros(1, m.out_features) for m in linears]
    gs, inputs = vmap(grad(loss_of_one, has_aux=True), in_dims=(None, None, 0, 0))(offsets, params, x, y)
    return sum(g.pow(2).sum((1, 2)) * (a.pow(2).sum((1, 2)) + 1) for g, a in zip(gs, inputs)).sqrt()
