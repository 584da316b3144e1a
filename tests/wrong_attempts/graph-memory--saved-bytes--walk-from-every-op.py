# expect: only pack sees them
# Counts nothing in pack: a TorchFunctionMode collects the grad_fn of every tensor a torch function returns
# during forward, and the bytes come from walking the graph back from each. Code that runs with torch
# functions' overrides disabled hides its tensors from the mode, but not from pack.
import torch
from torch.overrides import TorchFunctionMode


class Outputs(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(o, torch.Tensor) and o.grad_fn is not None:
                self.seen.append(o.grad_fn)
        return out


def saved_bytes(model, x):
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t), Outputs() as mode:
        model(x)
    storages, seen, todo = {}, set(), list(mode.seen)
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        values = [getattr(node, name) for name in dir(node) if name.startswith("_saved_")]
        if hasattr(node, "saved_tensors"):  # a custom Function's node
            values += list(node.saved_tensors)
        for v in values:
            if isinstance(v, torch.Tensor):
                storages[v.untyped_storage().data_ptr()] = v.untyped_storage().nbytes()
        todo += [p for p, _ in node.next_functions]
    return sum(storages.values())
