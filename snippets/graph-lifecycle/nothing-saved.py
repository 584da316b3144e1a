import torch

from measured import glue


def saved_by_graph(grad_fn):
    """What the graph's nodes saved for backward, from grad_fn to leaves (an attribute that
    is None was not saved: the gradient it would serve is not needed)."""
    found, todo = [], [grad_fn]
    while todo:
        node = todo.pop()
        if node is not None:
            found += [f"{type(node).__name__}.{name[len('_saved_'):]}"
                      for name in dir(node) if name.startswith("_saved_") and getattr(node, name) is not None]
            todo += [next_node for next_node, _ in node.next_functions]
    return found


for label, forward in [("w.sum()", lambda w: w.sum()),
                       ("(w + 1).sum()", lambda w: (w + 1).sum()),
                       ("(w * 2).sum()", lambda w: (w * 2).sum()),
                       ("(w * w).sum()", lambda w: (w * w).sum())]:
    w = torch.tensor([1.0], requires_grad=True)
    out = forward(w)
    saved = saved_by_graph(out.grad_fn)
    print(f"{label}: the graph saved {saved}")
    if label == "(w * 2).sum()":
        print(f"  MulBackward0.other is {out.grad_fn.next_functions[0][0]._saved_other!r}: the constant, as a tensor")
    out.backward()
    try:
        out.backward()  # a second time, without retain_graph
        print(f"  second backward: no error, w.grad = {w.grad.item()}")
    except RuntimeError as error:
        print(f"  second backward: RuntimeError: {str(error).split(' (')[0]}")
    if label == "w.sum()":
        glue("nothing_saved_grad", w.grad)
