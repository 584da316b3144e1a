# expect: one norm for the whole batch: the norm of the batch gradient
# The usual first try: grad of the batch loss, which is one gradient, the batch's, and so one norm.
from torch.func import functional_call, grad


def per_sample_norms(model, loss_fn, x, y):
    params = {name: p.detach() for name, p in model.named_parameters()}
    grads = grad(lambda p: loss_fn(functional_call(model, p, (x,)), y))(params)
    return sum(g.pow(2).sum() for g in grads.values()).sqrt()
