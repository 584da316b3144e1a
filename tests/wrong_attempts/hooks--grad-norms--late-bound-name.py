# expect: every hook wrote its norm under that one name
# The lambda reads `name` when it runs, after the loop: every hook writes under the last parameter's name.


def grad_norms(model, loss):
    norms = {}
    handles = [p.register_hook(lambda grad: norms.__setitem__(name, grad.norm().item()))
               for name, p in model.named_parameters()]
    try:
        loss.backward()
    finally:
        for handle in handles:
            handle.remove()
    return norms
