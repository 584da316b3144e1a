# expect: model[:3] ran without recording a graph
# Cuts with torch.no_grad() around the first layers instead of detach() on their output.
import torch


def freeze_first(model, k):
    model[:k].requires_grad_(False)


def forward_cut(model, x, k):
    with torch.no_grad():
        h = model[:k](x)
    return model[k:](h)
