# expect: check is_leaf next
# The usual first try: decide from requires_grad alone.

NO_REQUIRES_GRAD = "no-requires-grad"
REACHED = "reached"


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    return REACHED
