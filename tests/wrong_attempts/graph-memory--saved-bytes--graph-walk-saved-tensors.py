# expect: there is no graph to walk from the output
# Counts nothing in pack: the forward runs inside do-nothing hooks and the bytes come from walking the
# graph from the output, reading the _saved_* attributes and, on a custom Function's node, saved_tensors.
import torch


def saved_bytes(model, x):
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        out = model(x)
    storages, seen, todo = {}, set(), [out.grad_fn]
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
