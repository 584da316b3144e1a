# expect: changed whether the caller's x requires grad
# Runs backward on the caller's own x and puts back its .grad, but leaves requires_grad turned on.
def vjp(f, x, v):
    saved = x.grad
    x.requires_grad_(True)
    x.grad = None
    f(x).backward(v)
    result = x.grad
    x.grad = saved
    return result
