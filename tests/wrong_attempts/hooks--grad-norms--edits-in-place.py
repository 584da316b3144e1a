# expect: a hook of grad_norms changed it
# Right norms, read in hooks, but the hook also clips the gradient in place: the monitor changes training.


def grad_norms(model, loss):
    norms = {}

    def record(grad, name):
        norms[name] = grad.norm().item()
        grad.clamp_(-0.1, 0.1)  # returns nothing, yet changes what is added into .grad

    handles = [p.register_hook(lambda grad, name=name: record(grad, name)) for name, p in model.named_parameters()]
    try:
        loss.backward()
    finally:
        for handle in handles:
            handle.remove()
    return norms
