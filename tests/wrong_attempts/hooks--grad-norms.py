# expect: hooks are still registered after grad_norms returned
# The usual first try: right numbers, but the handles are thrown away and the hooks stay on the parameters.


def grad_norms(model, loss):
    norms = {}
    for name, p in model.named_parameters():
        p.register_hook(lambda grad, name=name: norms.__setitem__(name, grad.norm().item()))
    loss.backward()
    return norms
