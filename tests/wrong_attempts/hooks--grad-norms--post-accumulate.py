# expect: the norm of the accumulated .grad
# A post-accumulate hook fires after .grad is updated: it reads the earlier micro-batch's gradient too.


def grad_norms(model, loss):
    norms = {}
    handles = [p.register_post_accumulate_grad_hook(
        lambda p, name=name: norms.__setitem__(name, p.grad.norm().item()))
        for name, p in model.named_parameters()]
    loss.backward()
    for handle in handles:
        handle.remove()
    return norms
