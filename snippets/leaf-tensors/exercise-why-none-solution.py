"""Reference solution: the chapter's three checks, in order."""

import torch
from torch import nn

NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"


def reaches(loss, tensor):
    """Does backward from loss get to the leaf `tensor`? Look for the AccumulateGrad node holding it."""
    todo, seen = [loss.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if getattr(node, "variable", None) is tensor:  # `is`: the same object, not equal values or memory
            return True
        todo += [next_node for next_node, _ in node.next_functions]
    return False


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:  # before the graph: no AccumulateGrad node holds a non-leaf
        return NOT_A_LEAF
    if not reaches(loss, tensor):
        return NOT_REACHED
    return REACHED  # the graph leads to it: look at how the gradients were computed


if __name__ == "__main__":
    torch.manual_seed(0)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    first, second = nn.Linear(3, 4), nn.Linear(4, 1)
    with torch.no_grad():
        hidden = first(x)
    loss = nn.functional.mse_loss(second(hidden), y)
    loss.backward()
    print("first.weight: ", why_grad_is_none(first.weight, loss))
    print("second.weight:", why_grad_is_none(second.weight, loss))
