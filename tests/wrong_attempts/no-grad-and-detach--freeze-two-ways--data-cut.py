# expect: forward_cut did not call detach() on the output of model[2]
# Cuts with .data, not detach(): the new tensor gets a version counter of its own, not the original's.


def freeze_first(model, k):
    model[:k].requires_grad_(False)


def forward_cut(model, x, k):
    return model[k:](model[:k](x).data)
