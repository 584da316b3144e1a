# expect: visit each node once
# Walks the graph the right way but keeps no set of the nodes it has seen: every path is walked
# anew. Fine on a chain; a residual network of n blocks has 2^n paths from the loss to its stem.
NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"


def reaches(loss, tensor):
    todo = [loss.grad_fn]
    while todo:
        node = todo.pop()
        if node is None:
            continue
        if getattr(node, "variable", None) is tensor:
            return True
        todo += [parent for parent, _ in node.next_functions]
    return False


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:
        return NOT_A_LEAF
    return REACHED if reaches(loss, tensor) else NOT_REACHED
