# expect: grad_norms ran 2 backward passes: expected exactly one
# Hooks that read nothing, and the gradients from the engine called directly, past torch.autograd (a second
# pass, which the judge records at the engine); the hooks come first, so that they are in place when that pass arrives.
import torch
from torch.autograd.variable import Variable


def grad_norms(model, loss):
    names, params = zip(*model.named_parameters())
    handles = [p.register_hook(lambda grad: None) for p in params]
    grads = Variable._execution_engine.run_backward(
        (loss,), (torch.ones_like(loss),), True, False, params, False, False)
    try:
        loss.backward()
    finally:
        for handle in handles:
            handle.remove()
    return {name: g.norm().item() for name, g in zip(names, grads)}
