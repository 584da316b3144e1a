# expect: where mid(x) joins the residual stack
# A walk with no set of seen nodes and a cap of its own, run once taking next_functions in order and
# once reversed: each order finds a layer beside the stack on its own side of the +, but both go through
# the blocks below the point where mid(x) joins the stack before they get to mid. Its cap of 1000
# nodes an order keeps it under the line budget, as it would be tuned.
NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"


def dfs(node, tensor, budget, flip):
    # no set of seen nodes; gives up (False) when its own budget runs out
    if node is None or budget[0] <= 0:
        return False
    budget[0] -= 1
    if getattr(node, "variable", None) is tensor:
        return True
    parents = [p for p, _ in node.next_functions]
    if flip:
        parents.reverse()
    return any(dfs(p, tensor, budget, flip) for p in parents)


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:
        return NOT_A_LEAF
    root = loss.grad_fn
    for flip in (False, True):
        if dfs(root, tensor, [1000], flip):
            return REACHED
    return NOT_REACHED
