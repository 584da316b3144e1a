# expect: model(x) ran once, 0 of them inside saved_tensors_hooks
# No hooks: walks the graph from the output and reads every node's _saved_* attributes.
import torch


def saved_bytes(model, x):
    out = model(x)
    storages, seen, todo = {}, set(), [out.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for name in dir(node):
            value = getattr(node, name) if name.startswith("_saved_") else None
            if isinstance(value, torch.Tensor):
                storages[value.untyped_storage().data_ptr()] = value.untyped_storage().nbytes()
        todo += [parent for parent, _ in node.next_functions]
    return sum(storages.values())
