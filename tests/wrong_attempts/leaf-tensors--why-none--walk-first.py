# expect: though requires_grad or is_leaf already gives the reason
# Walks the graph first and reads requires_grad and is_leaf only when the walk finds nothing: the
# answers come out right, but not in the chapter's order, which stops at the first reason that holds.
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
    if reaches(loss, tensor):
        return REACHED
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    return NOT_A_LEAF if not tensor.is_leaf else NOT_REACHED
