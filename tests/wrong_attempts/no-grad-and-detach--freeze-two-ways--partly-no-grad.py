# expect: model[0] (Linear), model[1] (Tanh) ran without recording a graph
# Runs model[:k-1] under torch.no_grad() and only model[k-1] on the graph, then detaches its output.
import torch


def freeze_first(model, k):
    model[:k].requires_grad_(False)


def forward_cut(model, x, k):
    with torch.no_grad():
        h = model[:k - 1](x)
    return model[k:](model[k - 1](h).detach())
