# expect: no hook registered by grad_norms was in place
# No hooks: .grad copied before backward and subtracted after it.


def grad_norms(model, loss):
    before = {name: p.grad.clone() for name, p in model.named_parameters()}
    loss.backward()
    return {name: (p.grad - before[name]).norm().item() for name, p in model.named_parameters()}
