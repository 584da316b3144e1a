# expect: A walk that stops after some number of nodes never gets there
# A walk with no set of seen nodes that dives down a path in random order, 400 nodes at most, and
# starts again 8 times: it finds blocks[0] and answers the stem by its fallback guess, but a random
# path seldom leads through the sums to mid(x), and now and then misses the layer beside the + too;
# both cases' verdicts name the capped walk (the shuffle is not seeded: which one comes first varies).
import random

NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"


def dive(root, tensor, cap):
    stack, n = [root], 0
    while stack and n < cap:
        node = stack.pop(); n += 1
        if node is None: continue
        if getattr(node, "variable", None) is tensor: return True
        parents = [p for p, _ in node.next_functions]; random.shuffle(parents); stack += parents
    return False


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:
        return NOT_A_LEAF
    root = loss.grad_fn
    return REACHED if any(dive(root, tensor, 400) for _ in range(8)) else NOT_REACHED
