# expect: the graph's nodes were run outside the pass
# Builds J from the graph's nodes called directly (no engine pass, no f call), reads with a hook of
# its own, registered after the judge's, the gradient that reaches f's output in one backward(v),
# and returns that gradient @ J: it follows a swap at f's output, not one at the tensor f receives.
import torch


def _jacobian(out, n):
    order, edges = [], {}

    def visit(node):
        if id(node) in edges:
            return
        edges[id(node)] = [(nxt, slot) for nxt, slot in node.next_functions if nxt is not None]
        for nxt, _ in edges[id(node)]:
            visit(nxt)
        order.append(node)  # the list keeps every wrapper alive: id() names one node throughout
    visit(out.grad_fn)
    rows = []
    for i in range(out.numel()):
        grads = {id(out.grad_fn): {0: torch.eye(out.numel(), dtype=out.dtype)[i]}}
        row = torch.zeros(n, dtype=out.dtype)
        for node in reversed(order):
            incoming = grads.pop(id(node), None)
            if incoming is None:
                continue
            if type(node).__name__ == "AccumulateGrad":
                row = row + incoming[0]
                continue
            results = node(*[incoming.get(k) for k in range(max(incoming) + 1)])
            results = results if isinstance(results, tuple) else (results,)
            live = [e for e in node.next_functions]
            for (nxt, slot), g in zip(live, results):
                if nxt is None or g is None:
                    continue
                key = next(id(m) for m, _ in edges[id(node)] if m is nxt or id(m) == id(nxt))
                slots = grads.setdefault(key, {})
                slots[slot] = g if slot not in slots else slots[slot] + g
        rows.append(row)
    return torch.stack(rows)


def vjp(f, x, v):
    # J is built row by row by calling the graph's nodes directly (no engine pass, no extra f call);
    # the one backward(v) runs only so that a hook can read the gradient that reaches f's output,
    # and the result is that gradient times the J built above. leaf.grad is never read.
    leaf = x.detach().requires_grad_()
    out = f(leaf)
    J = _jacobian(out, leaf.numel())
    arrived = []
    out.register_hook(lambda g: arrived.append(g.detach().clone()))
    out.backward(v)
    return (arrived[0] @ J).to(x.dtype)
