# expect: freeze_first left requires_grad True on model[0].weight
# "Freezes" with a hook that throws each gradient away: the gradients are still computed every step.


def freeze_first(model, k):
    for p in model[:k].parameters():
        p.register_post_accumulate_grad_hook(lambda p: setattr(p, "grad", None))


def forward_cut(model, x, k):
    return model[k:](model[:k](x).detach())
