# expect: forward_cut did not call detach() on the output of model[2]
# Cuts with .data, which the in-place chapter warns about: no version counter, no detach().


def freeze_first(model, k):
    model[:k].requires_grad_(False)


def forward_cut(model, x, k):
    return model[k:](model[:k](x).data)
