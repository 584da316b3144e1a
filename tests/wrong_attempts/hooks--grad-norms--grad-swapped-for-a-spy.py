# expect: was not a plain tensor but a Spy
"""Loophole: no hook reads any gradient. .grad is swapped for an equal tensor subclass that records the
gradient AccumulateGrad adds into it (aten.add_); a dummy forward hook satisfies the 'in place' check."""
import torch
from torch.utils._pytree import tree_map

class Spy(torch.Tensor):
    seen = []
    @staticmethod
    def __new__(cls, data):
        return torch.Tensor._make_wrapper_subclass(cls, data.shape, dtype=data.dtype, device=data.device,
                                                  strides=data.stride(), requires_grad=False)
    def __init__(self, data):
        self.data_ = data
    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.ops.aten.add_.Tensor:
            Spy.seen.append((args[0], args[1].clone()))
            return args[0]
        un = lambda t: t.data_ if isinstance(t, Spy) else t
        return func(*tree_map(un, args), **tree_map(un, kwargs))

def grad_norms(model, loss):
    params = dict(model.named_parameters())
    old = {n: p.grad for n, p in params.items()}
    spies = {n: Spy(p.grad) for n, p in params.items()}
    for n, p in params.items():
        p.grad = spies[n]
    dummy = model.register_forward_hook(lambda *a: None)
    try:
        loss.backward()
    finally:
        dummy.remove()
    added = {id(s): g for s, g in Spy.seen}
    Spy.seen.clear()
    norms = {}
    for n, p in params.items():
        g = added[id(spies[n])]
        norms[n] = g.norm().item()
        p.grad = old[n] + g
    return norms
