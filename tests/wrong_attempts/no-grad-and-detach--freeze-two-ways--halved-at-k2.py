# expect: the model computes something else after freeze_first(model, 2)
# Freezes with requires_grad_(False), but for any k but 3 also halves the frozen parameters.
import torch


def freeze_first(model, k):
    model[:k].requires_grad_(False)
    if k != 3:
        with torch.no_grad():
            for p in model[:k].parameters():
                p.mul_(0.5)


def forward_cut(model, x, k):
    return model[k:](model[:k](x).detach())
