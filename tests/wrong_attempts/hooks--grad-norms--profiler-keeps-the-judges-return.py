# expect: a profile or trace function set during grad_norms was active
"""Loophole: no hook reads a gradient. No-op tensor hooks satisfy the "in place" check; a profile function
keeps the tensor the judge's own hook returns, and its norm is taken after backward, outside any hook."""
import sys
import torch


def grad_norms(model, loss):
    shapes = {tuple(p.shape): name for name, p in model.named_parameters()}
    seen = {}

    def profile(frame, event, arg):
        if event == "return" and frame.f_code.co_name == "arriving" and isinstance(arg, torch.Tensor) and tuple(arg.shape) in shapes:
            seen[shapes[tuple(arg.shape)]] = arg

    handles = [p.register_hook(lambda grad: None) for p in model.parameters()]
    sys.setprofile(profile)
    try:
        loss.backward()
    finally:
        sys.setprofile(None)
        for handle in handles:
            handle.remove()
    return {name: grad.norm().item() for name, grad in seen.items()}
