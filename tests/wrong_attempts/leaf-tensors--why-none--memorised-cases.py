# expect: did not walk the graph from loss.grad_fn
# Never walks the graph and never reads .grad: answers the third reason from a table of the
# shapes an earlier, fixed set of cases used (x 8 x 3, a hidden layer 4 wide).
NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"
UNREACHED_SHAPES = {(4, 3)}  # first.weight and head.weight


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:
        return NOT_A_LEAF
    return NOT_REACHED if tuple(tensor.shape) in UNREACHED_SHAPES else REACHED
