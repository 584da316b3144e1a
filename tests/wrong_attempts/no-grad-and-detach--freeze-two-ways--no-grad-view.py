# expect: received a tensor that detach() did not return
# Calls detach() and throws the result away, then cuts with a view taken under torch.no_grad().
import torch


def freeze_first(model, k):
    model[:k].requires_grad_(False)


def forward_cut(model, x, k):
    h = model[:k](x)
    h.detach()
    with torch.no_grad():
        cut = h.view_as(h)
    return model[k:](cut)
