# expect: the one backward pass was run by torch.autograd.functional, not by torch.func (grad under vmap) (mse_loss)
# torch.autograd.functional.jacobian with vectorize=True of the per-sample losses: one batched backward pass,
# run by torch.autograd.functional on the batch's vector of losses, not by grad of one sample's loss under vmap.
import torch
from torch.func import functional_call


def per_sample_norms(model, loss_fn, x, y):
    names = [name for name, _ in model.named_parameters()]
    detached = tuple(p.detach() for p in model.parameters())

    def losses(*tensors):
        out = functional_call(model, dict(zip(names, tensors)), (x,))
        return torch.stack([loss_fn(out[i:i + 1], y[i:i + 1]) for i in range(len(x))])

    rows = torch.autograd.functional.jacobian(losses, detached, vectorize=True)
    return torch.sqrt(sum(row.flatten(start_dim=1).pow(2).sum(dim=1) for row in rows))
