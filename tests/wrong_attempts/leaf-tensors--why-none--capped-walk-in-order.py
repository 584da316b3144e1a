# expect: A walk that stops after some number of nodes never gets there
# The same capped walk without a set of seen nodes, recursive and in the order of next_functions:
# it takes the other side of each + first, so it misses the layer that comes before the residual
# stack in a sum.
NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"


def reaches(node, tensor, budget):
    if node is None or budget[0] <= 0:
        return False
    budget[0] -= 1
    if getattr(node, "variable", None) is tensor:
        return True
    return any(reaches(parent, tensor, budget) for parent, _ in node.next_functions)


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:
        return NOT_A_LEAF
    return REACHED if reaches(loss.grad_fn, tensor, [3000]) else NOT_REACHED
