# expect: forward ran under saved-tensor hooks
# Keeps all three edits in place and hides them with a saved-tensor hook pushed by torch's internal call, which
# no `with` statement shows. Each node saves the tensor and a clone of it; reading `_saved_*` outside backward
# gives the tensor itself (so no node seems to hold a copy), and backward gets the clone (so no error, and the
# gradients are right).
import torch


def forward(x, q):
    def pack(t):
        return t, t.clone()

    def unpack(packed):
        return packed[1] if torch._C._current_graph_task_id() != -1 else packed[0]

    torch._C._autograd._push_saved_tensors_default_hooks(pack, unpack)
    try:
        a = x * 2
        s = a.sigmoid()
        c = a * q
        c.add_(1)
        s.add_(1)
        a.add_(1)
    finally:
        torch._C._autograd._pop_saved_tensors_default_hooks()
    return (s * c + a).sum()
