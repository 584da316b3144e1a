# expect: was active: a mode sees every tensor operation
"""Loophole: no hook reads a gradient. No-op post-accumulate hooks satisfy the "in place" check, and a
TorchDispatchMode reads the gradient AccumulateGrad adds into .grad (aten.add_)."""
import torch
from torch.utils._python_dispatch import TorchDispatchMode


class Spy(TorchDispatchMode):
    def __init__(self, grads):
        super().__init__()
        self.grads, self.seen = grads, {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in (torch.ops.aten.add_.Tensor, torch.ops.aten.add.Tensor) and len(args) > 1:
            for name, ptr in self.grads.items():
                if isinstance(args[0], torch.Tensor) and args[0].data_ptr() == ptr:
                    self.seen[name] = args[1].norm().item()
        return func(*args, **kwargs)


def grad_norms(model, loss):
    handles = [p.register_post_accumulate_grad_hook(lambda p: None) for _, p in model.named_parameters()]
    grads = {name: p.grad.data_ptr() for name, p in model.named_parameters()}
    spy = Spy(grads)
    try:
        with spy:
            loss.backward()
    finally:
        for h in handles:
            h.remove()
    return spy.seen
