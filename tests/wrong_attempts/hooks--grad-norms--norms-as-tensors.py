# expect: a value grad_norms returned is not a Python float
# The right hooks, removed, but each value is the 0-d tensor grad.norm(), not a float.


def grad_norms(model, loss):
    norms = {}
    handles = [p.register_hook(lambda grad, name=name: norms.__setitem__(name, grad.norm()))
               for name, p in model.named_parameters()]
    try:
        loss.backward()
    finally:
        for handle in handles:
            handle.remove()
    return norms
