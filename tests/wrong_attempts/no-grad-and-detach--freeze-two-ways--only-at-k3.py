# expect: freeze_first(model, 2) keeps the model's parameters
# Uses the two tools only for k = 3; any other k drops gradients with a hook and cuts under torch.no_grad().
import torch


def freeze_first(model, k):
    if k == 3:
        model[:k].requires_grad_(False)
        return
    for p in model[:k].parameters():
        p.register_post_accumulate_grad_hook(lambda p: setattr(p, "grad", None))


def forward_cut(model, x, k):
    if k == 3:
        return model[k:](model[:k](x).detach())
    with torch.no_grad():
        h = model[:k](x)
    return model[k:](h)
