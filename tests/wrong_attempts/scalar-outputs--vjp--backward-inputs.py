# expect: changed the caller's x.grad
# A leaf x gets a detached copy, but a non-leaf x is used as it is, with backward stopped there by
# inputs=[x]: nothing reaches the leaves x was computed from, yet the caller's x is left holding a
# .grad and its graph is freed.
def vjp(f, x, v):
    leaf = x.detach().requires_grad_() if x.is_leaf else x
    f(leaf).backward(v, inputs=[leaf])
    return leaf.grad
