# expect: grad_norms set .grad aside
# No hooks: .grad set aside, backward into an empty .grad, read it, then the two added back together.


def grad_norms(model, loss):
    params = dict(model.named_parameters())
    earlier = {name: p.grad for name, p in params.items()}
    for p in params.values():
        p.grad = None
    loss.backward()
    norms = {name: p.grad.norm().item() for name, p in params.items()}
    for name, p in params.items():
        p.grad = earlier[name] + p.grad
    return norms
