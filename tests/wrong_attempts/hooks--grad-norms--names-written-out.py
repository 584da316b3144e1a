# expect: did not return a dict keyed by every parameter name
# The names of the first model written out instead of taken from model.named_parameters().

NAMES = ("0.weight", "0.bias", "2.weight", "2.bias")


def grad_norms(model, loss):
    norms = {}
    handles = [model.get_parameter(name).register_hook(
        lambda grad, name=name: norms.__setitem__(name, grad.norm().item())) for name in NAMES]
    try:
        loss.backward()
    finally:
        for handle in handles:
            handle.remove()
    return norms
