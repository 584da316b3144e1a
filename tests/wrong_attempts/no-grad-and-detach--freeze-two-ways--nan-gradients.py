# expect: NaN or infinite values in model[4] (Linear)
# Freezes model[:k] as asked, but turns every later gradient into NaN: AdamW then writes NaN into the
# layers after the frozen ones, which changes them without training them.
def freeze_first(model, k):
    model[:k].requires_grad_(False)
    for p in model[k:].parameters():
        p.register_hook(lambda g: g * float("nan"))


def forward_cut(model, x, k):
    return model[k:](model[:k](x).detach())
