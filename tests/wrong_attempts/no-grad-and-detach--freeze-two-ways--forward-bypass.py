# expect: received a copy of model[2]'s output, not the tensor detach() returned
# Throws away a detach(), hands the later layers a copy made through .data, and calls their
# forward() directly, so that model[k]'s hooks never see what it received.
def freeze_first(model, k):
    model[:k].requires_grad_(False)


def forward_cut(model, x, k):
    h = model[:k](x)
    h.detach()
    out = h.data.clone()
    for layer in model[k:]:
        out = layer.forward(out)
    return out
