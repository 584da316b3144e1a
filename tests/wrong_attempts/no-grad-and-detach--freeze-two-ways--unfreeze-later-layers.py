# expect: freeze_first changed requires_grad on model[4].weight
# Freezes the whole model, then switches requires_grad back on for every later layer: one the user had
# frozen already would train again.
def freeze_first(model, k):
    model.requires_grad_(False)
    model[k:].requires_grad_(True)


def forward_cut(model, x, k):
    return model[k:](model[:k](x).detach())
