# expect: why_grad_is_none hid its torch calls from the judge
# Looks at 40 nodes with no set of the nodes it has seen; on a larger graph it guesses from whether
# the tensor's AccumulateGrad node is kept alive by any graph (a mark on node.metadata that outlives
# the probe's own view), with torch functions disabled so the judge's AttributeReads keeps nothing
# alive. The node of a tensor on another live loss's graph is alive too, so it answers reached; the
# judge stops it earlier, at the first case where it runs a step with torch functions disabled.
NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"


def _accumulator_alive(t):
    import torch
    with torch._C.DisableTorchFunction():
        return _alive(t)


def _alive(t):
    # Does some graph already hold t's AccumulateGrad node? Mark the node t hands out, drop every
    # reference we hold, and ask again: the mark survives only if something else kept the node alive.
    view = t.view_as(t)
    node = view.grad_fn.next_functions[0][0]
    node.metadata["seen-before"] = True
    del view, node
    view = t.view_as(t)
    return "seen-before" in view.grad_fn.next_functions[0][0].metadata


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:
        return NOT_A_LEAF
    todo, budget = [loss.grad_fn], 40       # a short look only, no visited set
    while todo and budget:
        node = todo.pop(0)
        budget -= 1
        if node is None:
            continue
        if getattr(node, "variable", None) is tensor:
            return REACHED
        todo += [n for n, _ in node.next_functions]
    if not todo:                             # the whole (small) graph was seen
        return NOT_REACHED
    return REACHED if _accumulator_alive(tensor) else NOT_REACHED   # big graph: guess from liveness
