# expect: no call that made the sigmoid was seen
# Pushes a copying saved-tensor hook and runs the saving operations and the edits under
# torch._C.DisableTorchFunction(), so that no torch function mode sees them: every node saves a clone,
# and the breaking edits stay in place.
import torch


def forward(x, q):
    with torch._C.DisableTorchFunction():
        torch._C._autograd._push_saved_tensors_default_hooks(lambda t: t.clone(), lambda t: t)
        try:
            a = x * 2
            s = a.sigmoid()
            c = a * q
        finally:
            torch._C._autograd._pop_saved_tensors_default_hooks()
    c.add_(1)
    with torch._C.DisableTorchFunction():
        s.add_(1)
        a.add_(1)
    return (s * c + a).sum()
