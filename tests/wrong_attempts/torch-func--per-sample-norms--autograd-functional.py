# expect: 16 backward passes where vmap(grad(...)) runs one, by torch.func (mse_loss)
# One batched forward, then torch.autograd.functional.jacobian of the per-sample losses: torch runs
# one torch.autograd.grad per sample for it, where vmap(grad(...)) runs one for the batch.
import torch
from torch.func import functional_call


def per_sample_norms(model, loss_fn, x, y):
    names = [name for name, _ in model.named_parameters()]
    detached = tuple(p.detach() for p in model.parameters())

    def losses(*tensors):
        out = functional_call(model, dict(zip(names, tensors)), (x,))
        return torch.stack([loss_fn(out[i:i + 1], y[i:i + 1]) for i in range(len(x))])

    rows = torch.autograd.functional.jacobian(losses, detached)
    return torch.sqrt(sum(row.flatten(start_dim=1).pow(2).sum(dim=1) for row in rows))
