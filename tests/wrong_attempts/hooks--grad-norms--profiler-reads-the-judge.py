# expect: no code of grad_norms called a torch operation on the gradient the judge's hook handed on
"""Loophole: no hook reads a gradient. No-op tensor hooks satisfy the "in place" check, and a profile
function reads the gradient the judge's own hook returns, as that hook returns it."""
import sys
import torch


def grad_norms(model, loss):
    shapes = {tuple(p.shape): name for name, p in model.named_parameters()}
    seen = {}

    def profile(frame, event, arg):
        if event == "return" and frame.f_code.co_name == "arriving" and isinstance(arg, torch.Tensor) and tuple(arg.shape) in shapes:
            seen[shapes[tuple(arg.shape)]] = arg.norm().item()

    handles = [p.register_hook(lambda grad: None) for p in model.parameters()]
    sys.setprofile(profile)
    try:
        loss.backward()
    finally:
        sys.setprofile(None)
        for handle in handles:
            handle.remove()
    return seen
