# expect: only pack sees them
# Counts nothing in pack: forward hooks collect every module's output, and the bytes come from walking
# the graph back from each of them, reading the _saved_* attributes and, on a custom Function's node,
# saved_tensors. A model whose output is cut off from its graph does not stop it; a module that saves
# tensors and hands back a result cut off from them does.
import torch


def saved_bytes(model, x):
    outputs = []
    handles = [module.register_forward_hook(lambda module, args, output: outputs.append(output))
               for module in model.modules()]
    try:
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    storages, seen = {}, set()
    todo = [o.grad_fn for o in outputs if isinstance(o, torch.Tensor) and o.grad_fn is not None]
    outputs.clear()
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        values = [getattr(node, name) for name in dir(node) if name.startswith("_saved_")]
        if hasattr(node, "saved_tensors"):  # a custom Function's node
            values += list(node.saved_tensors)
        for value in values:
            if isinstance(value, torch.Tensor):
                storages[value.untyped_storage().data_ptr()] = value.untyped_storage().nbytes()
        todo += [parent for parent, _ in node.next_functions]
    return sum(storages.values())
