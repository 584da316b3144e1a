# expect: already been freed
# Like walk-from-every-aten-op, but it keeps a saved tensor it reads from _saved_* or saved_tensors only if
# its storage is that of an aten output seen during forward (pack's own t.detach() is one), of x, or of a
# parameter: that drops the 0.5 of h * 0.5, which never reaches pack. It still reads nodes, and a node that
# a gradient taken during forward has already run holds nothing any more.
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves


class Outputs(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.out = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        r = func(*args, **(kwargs or {}))
        self.out += [t for t in tree_leaves(r) if isinstance(t, torch.Tensor)]
        return r


def saved_bytes(model, x):
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        with Outputs() as mode:
            out = model(x)
    seen, stack, storages = set(), [], {}
    allowed = {t.untyped_storage().data_ptr() for t in mode.out + [x] + list(model.parameters())}
    for t in mode.out + [out]:
        if t.grad_fn is not None:
            stack.append(t.grad_fn)
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        found = []
        for name in dir(node):
            if name.startswith("_saved_"):
                v = getattr(node, name)
                found += [v] if isinstance(v, torch.Tensor) else [u for u in (v if isinstance(v, (list, tuple)) else []) if isinstance(u, torch.Tensor)]
        if hasattr(node, "saved_tensors"):
            try:
                found += list(node.saved_tensors)
            except Exception:
                pass
        for v in found:
            s = v.untyped_storage()
            if s.data_ptr() not in allowed:
                continue
            storages[s.data_ptr()] = s.nbytes()
        stack += [n for n, _ in node.next_functions]
    del mode, out, stack, seen
    return sum(storages.values())
