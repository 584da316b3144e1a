# expect: why_grad_is_none read .grad
# Skips the graph: decides "reached" from .grad, which any earlier backward may have filled.
NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:
        return NOT_A_LEAF
    return NOT_REACHED if tensor.grad is None else REACHED
