# expect: why_grad_is_none hid its torch calls from the judge
# Walks the graph first, before requires_grad and is_leaf, with torch functions disabled so that
# no read of loss is seen; reads a bare loss.grad_fn only where the chapter's order would walk.
import torch

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
    with torch._C.DisableTorchFunction():
        found = reaches(loss.grad_fn, tensor)   # walk first, unseen
    if found:
        loss.grad_fn
        return REACHED
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:
        return NOT_A_LEAF
    loss.grad_fn
    return NOT_REACHED
