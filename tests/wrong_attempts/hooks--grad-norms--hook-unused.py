# expect: float32 rounding of the sum lost this backward's part
# A hook is registered (and removed), but the norms come from .grad after backward minus .grad before.


def grad_norms(model, loss):
    before = {name: p.grad.clone() for name, p in model.named_parameters()}
    handles = [p.register_hook(lambda grad: None) for p in model.parameters()]
    try:
        loss.backward()
    finally:
        for handle in handles:
            handle.remove()
    return {name: (p.grad - before[name]).norm().item() for name, p in model.named_parameters()}
