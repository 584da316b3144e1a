# expect: forward ran under saved-tensor hooks
# The same hiding as a saved_tensors_hooks block, with the hooks pushed by torch's internal call, which
# no `with` statement shows: every node saves a clone, and the edits stay in place.
import torch


def forward(x, q):
    torch._C._autograd._push_saved_tensors_default_hooks(lambda t: t.clone(), lambda t: t)
    try:
        a = x * 2
        s = a.sigmoid()
        c = a * q
        c.add_(1)
        s.add_(1)
        a.add_(1)
        return (s * c + a).sum()
    finally:
        torch._C._autograd._pop_saved_tensors_default_hooks()
