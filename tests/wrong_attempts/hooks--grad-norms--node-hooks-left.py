# expect: registered during grad_norms are still registered
# Hooks on each parameter's AccumulateGrad node, never removed: not on the parameter, so not in its hook dicts.


def grad_norms(model, loss):
    norms = {}
    for name, p in model.named_parameters():
        accumulate = p.view_as(p).grad_fn.next_functions[0][0]  # the node that adds into p.grad
        accumulate.register_prehook(lambda grads, name=name: norms.__setitem__(name, grads[0].norm().item()))
    loss.backward()
    return norms
