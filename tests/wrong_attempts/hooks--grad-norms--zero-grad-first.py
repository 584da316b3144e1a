# expect: grad_norms cleared .grad (zero_grad(), or .grad = None) before backward
# Right hooks, but .grad is cleared first "to start clean": the earlier micro-batch's gradient is lost.


def grad_norms(model, loss):
    model.zero_grad()
    norms = {}
    handles = [p.register_hook(lambda grad, name=name: norms.__setitem__(name, grad.norm().item()))
               for name, p in model.named_parameters()]
    try:
        loss.backward()
    finally:
        for handle in handles:
            handle.remove()
    return norms
