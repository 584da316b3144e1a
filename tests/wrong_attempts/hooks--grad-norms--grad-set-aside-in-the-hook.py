# expect: moved .grad aside while backward ran
"""Loophole: a hook that never looks at its argument; it only moves .grad aside when the gradient
arrives, so AccumulateGrad stores this backward's gradient alone; the norm is read from .grad after."""
def grad_norms(model, loss):
    params = dict(model.named_parameters())
    aside = {}
    def make(name, p):
        def hook(_):
            aside[name] = p.grad
            p.grad = None
        return hook
    handles = [p.register_hook(make(n, p)) for n, p in params.items()]
    try:
        loss.backward()
    finally:
        for h in handles:
            h.remove()
    norms = {}
    for n, p in params.items():
        norms[n] = p.grad.norm().item()
        p.grad = aside[n] + p.grad
    return norms
