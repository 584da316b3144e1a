# expect: a profile or trace function set during grad_norms was active
"""Loophole: no hook reads a gradient. No-op tensor hooks satisfy the "in place" check, and the profile
function is a functools.partial, which has no code of the solution's file: it reads the tensor the judge's
own hook wrapper returns."""
import functools
import sys

import torch


def _watch(norms, frame, event, arg):
    if event == "return" and isinstance(arg, torch.Tensor) and "name" in frame.f_locals and "p" in frame.f_locals:
        norms.setdefault(frame.f_locals["name"], arg.norm().item())


def grad_norms(model, loss):
    norms = {}
    handles = [p.register_hook(lambda grad: None) for p in model.parameters()]
    previous = sys.getprofile()
    sys.setprofile(functools.partial(_watch, norms))
    try:
        loss.backward()
    finally:
        sys.setprofile(previous)
        for handle in handles:
            handle.remove()
    return norms
