# expect: why_grad_is_none ran a backward pass
# Asks autograd instead of walking the graph: a second backward pass through the loss.
import torch

NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:
        return NOT_A_LEAF
    (grad,) = torch.autograd.grad(loss, tensor, retain_graph=True, allow_unused=True)
    return NOT_REACHED if grad is None else REACHED
