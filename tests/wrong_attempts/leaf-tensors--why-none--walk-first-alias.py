# expect: though requires_grad or is_leaf already gives the reason
# walk-first with its tracks hidden: the walk starts at loss.grad_fn read off an alias of the loss
# (loss.view_as(loss)), and a bare loss.grad_fn is read only where the graph decides the answer. Any
# use of loss, not only a read of loss.grad_fn, comes before requires_grad and is_leaf here.
NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"


def reaches(root, tensor):
    todo, seen = [root], set()
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
    found = reaches(loss.view_as(loss).grad_fn.next_functions[0][0], tensor)  # loss.grad_fn, off an alias
    if found:
        loss.grad_fn  # read where the judge expects the walk to start
        return REACHED
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:
        return NOT_A_LEAF
    loss.grad_fn
    return NOT_REACHED
