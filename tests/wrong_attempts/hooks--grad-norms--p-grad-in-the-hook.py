# expect: inside a register_hook hook, p.grad still holds the earlier gradient
# A hook per parameter, but it reads p.grad instead of its argument: this backward's gradient is not in it yet.


def grad_norms(model, loss):
    norms = {}
    handles = [p.register_hook(lambda grad, name=name, p=p: norms.__setitem__(name, p.grad.norm().item()))
               for name, p in model.named_parameters()]
    try:
        loss.backward()
    finally:
        for handle in handles:
            handle.remove()
    return norms
