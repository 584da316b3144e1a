# expect: A walk that stops after some number of nodes never gets there
# Keeps no set of the nodes it has seen, and gives up after 3000 of them to stay under the line
# budget: last in, first out, it goes straight down the residual stack, so blocks[0] is found and a
# stem the walk never reaches comes out right, but a layer added beside the stack is never visited.
NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"


def reaches(loss, tensor):
    todo, visits = [loss.grad_fn], 0
    while todo and visits < 3000:
        node = todo.pop()
        visits += 1
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
