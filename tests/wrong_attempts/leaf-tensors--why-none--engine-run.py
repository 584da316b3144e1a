# expect: loss.grad_fn ran during why_grad_is_none
# Never walks the graph: runs autograd's engine directly, which the judge's backward() and
# torch.autograd.grad spies do not see. An unreached tensor gets None; a reached one makes the
# engine run the freed graph, which raises.
import torch
from torch.autograd.graph import _engine_run_backward

NO_REQUIRES_GRAD = "no-requires-grad"
NOT_A_LEAF = "not-a-leaf"
NOT_REACHED = "not-reached"
REACHED = "reached"


def why_grad_is_none(tensor, loss):
    if not tensor.requires_grad:
        return NO_REQUIRES_GRAD
    if not tensor.is_leaf:
        return NOT_A_LEAF
    if loss.grad_fn is None:
        return NOT_REACHED
    try:
        (grad,) = _engine_run_backward((loss,), (torch.ones_like(loss),), False, False, (tensor,), True, False)
    except RuntimeError:
        return REACHED
    return NOT_REACHED if grad is None else REACHED
