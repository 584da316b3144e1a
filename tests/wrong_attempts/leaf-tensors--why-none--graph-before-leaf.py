# expect: though requires_grad or is_leaf already gives the reason
# Walks the graph before asking is_leaf: a non-leaf is never held by an AccumulateGrad node, so
# it comes out "not reached" instead of "not a leaf".
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
        if getattr(node, "variable", None) is tensor:
            return True
        todo += [parent for parent, _ in node.next_functions]
    return False


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not reaches(loss, tensor):
        return NOT_REACHED
    return REACHED if tensor.is_leaf else NOT_A_LEAF
