# expect: vjp freed the caller's graph
# As backward-inputs, but the .grad it leaves on a non-leaf x is cleared before returning: the
# caller's x looks untouched, but the backward ran through the graph x was computed by and freed it.
def vjp(f, x, v):
    leaf = x.detach().requires_grad_() if x.is_leaf else x
    f(leaf).backward(v, inputs=[leaf])
    result = leaf.grad.clone()
    if not x.is_leaf:
        x.grad = None
    return result
