# expect: but not its version counter: .data, not detach()
# Calls detach() and throws the result away, then hands the later layers .data: a version counter of its own.


def freeze_first(model, k):
    model[:k].requires_grad_(False)


def forward_cut(model, x, k):
    h = model[:k](x)
    h.detach()
    return model[k:](h.data)
