"""Reference solution: requires_grad_(False) freezes parameters, detach() cuts the data flow."""

import torch
from torch import nn


def freeze_first(model, k):
    # Slicing an nn.Sequential gives an nn.Sequential of the same modules: one call reaches every
    # parameter of model[0] … model[k - 1]. Their .grad stays None, yet backward still passes
    # through these layers to whatever comes before them.
    model[:k].requires_grad_(False)


def forward_cut(model, x, k):
    # The detached activation is not on the graph: backward stops here, and everything before it
    # (parameters and input alike) gets no gradient, although its parameters still require grad.
    h = model[:k](x).detach()
    return model[k:](h)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
    forward_cut(model, torch.randn(8, 6), k=3).sum().backward()
    for name, p in model.named_parameters():
        print(f"model[{name.split('.')[0]}].{name.split('.')[1]:7}", "None" if p.grad is None else "gradient")
