# expect: alias shares the storage of tail.weight
# Walks the graph, but matches AccumulateGrad's variable by its memory (data_ptr), not with `is`.
NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"


def reaches(loss, tensor):
    todo, seen = [loss.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        variable = getattr(node, "variable", None)
        if variable is not None and variable.data_ptr() == tensor.data_ptr():
            return True
        todo += [parent for parent, _ in node.next_functions]
    return False


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:
        return NOT_A_LEAF
    return REACHED if reaches(loss, tensor) else NOT_REACHED
