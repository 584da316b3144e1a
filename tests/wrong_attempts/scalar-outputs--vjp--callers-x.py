# expect: the backward pass went on into the caller's graph
# Runs f and backward on the caller's own x, then puts back requires_grad and .grad: right for a leaf
# x, but a non-leaf x passes the gradient on to the leaves it was computed from.
def vjp(f, x, v):
    was, saved = x.requires_grad, x.grad
    x.requires_grad_(True)
    x.grad = None
    f(x).backward(v)
    result = x.grad
    x.grad = saved
    x.requires_grad_(was)
    return result
