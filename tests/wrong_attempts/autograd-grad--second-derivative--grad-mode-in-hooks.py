# expect: recorded by a torch.autograd.grad call without create_graph=True
# Skips create_graph=True: pre-hooks on every node of f(x)'s graph switch grad mode on, so the
# first torch.autograd.grad call (create_graph=False) records its backward pass all the same.
import torch


def _nodes(node, seen):
    if node is None or node in seen:
        return
    seen.add(node)
    for nxt, _ in node.next_functions:
        _nodes(nxt, seen)


def second_derivative(f, x):
    y = f(x)
    seen = set()
    _nodes(y.grad_fn, seen)
    for node in seen:
        node.register_prehook(lambda grads: torch._C._set_grad_enabled(True))
    (first,) = torch.autograd.grad(y, x)  # no create_graph
    torch._C._set_grad_enabled(True)
    (second,) = torch.autograd.grad(first, x)
    return second
