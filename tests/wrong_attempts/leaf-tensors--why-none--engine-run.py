# expect: why_grad_is_none ran a backward pass
# Never walks the graph: runs autograd's engine directly, past torch.autograd.backward and
# torch.autograd.grad (the judge records the pass at the engine). An unreached tensor gets None; a reached one makes the
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
