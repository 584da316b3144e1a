# expect: never reaches pack
# Counts nothing in pack: a TorchDispatchMode keeps every aten output during forward, and the bytes come
# from walking the grad_fn graph back from each, reading _saved_* and saved_tensors. It sees what torch
# functions hide from a TorchFunctionMode, but it also counts the Python number h * 0.5 keeps on its
# node, which never reaches pack.
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
            storages[s.data_ptr()] = s.nbytes()
        stack += [n for n, _ in node.next_functions]
    del mode, out, stack, seen
    return sum(storages.values())
