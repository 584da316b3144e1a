# expect: per_sample_norms changed the parameters' .grad
# Right numbers from a backward() per sample, but backward() and zero_grad() write the model's .grad.
import torch


def per_sample_norms(model, loss_fn, x, y):
    norms = []
    for xi, yi in zip(x, y):
        model.zero_grad()
        loss_fn(model(xi[None]), yi[None]).backward()
        norms.append(torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters())))
    return torch.stack(norms)
