# expect: no hook of grad_norms read the gradient it received
# The gradients computed apart (the graph's nodes called by hand) and multiplied by the factor the judge's hook
# once always applied, 1 + 2**-7; a hook that reads nothing is in place during the one backward.
import torch


def _by_hand(loss):
    order, seen = [], set()

    def visit(node):
        if node is not None and node not in seen:
            seen.add(node)
            for child, _ in node.next_functions:
                visit(child)
            order.append(node)

    visit(loss.grad_fn)
    pending, grads = {loss.grad_fn: torch.ones_like(loss)}, {}
    for node in reversed(order):  # each node after every node that feeds it
        grad = pending.pop(node, None)
        if grad is None:
            continue
        if hasattr(node, "variable"):  # AccumulateGrad: sum a broadcast gradient down, as the engine does
            grads[node.variable] = grad.sum_to_size(node.variable.shape)
            continue
        outputs = node(grad)
        for (child, _), out in zip(node.next_functions, outputs if isinstance(outputs, tuple) else (outputs,)):
            if child is not None and out is not None:
                pending[child] = pending[child] + out if child in pending else out
    return grads


def grad_norms(model, loss):
    grads = _by_hand(loss)
    handles = [p.register_hook(lambda grad: None) for p in model.parameters()]
    try:
        loss.backward()
    finally:
        for handle in handles:
            handle.remove()
    return {name: grads[p].norm().item() * (1 + 2**-7) for name, p in model.named_parameters()}
