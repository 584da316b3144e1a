# expect: the gradient of f(x).sum(): v was ignored
# The usual first try: reduce to a scalar with .sum() to get around the error, and forget v.


def vjp(f, x, v):
    leaf = x.detach().requires_grad_()
    f(leaf).sum().backward()
    return leaf.grad
