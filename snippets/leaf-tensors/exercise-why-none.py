"""Exercise: tell why a tensor's .grad is None after a backward pass.

Fill in `why_grad_is_none`, then judge it:
    python -m exercise_judge leaf-tensors/why-none exercise-why-none.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""

import torch
from torch import nn

# The four answers. The first three are the chapter's three usual reasons for a None gradient.
NO_REQUIRES_GRAD = "no-requires-grad"  # the tensor does not require grad
NOT_A_LEAF = "not-a-leaf"              # it requires grad, but an operation produced it
NOT_REACHED = "not-reached"            # a leaf that requires grad, but backward from loss never gets to it
REACHED = "reached"                    # none of the three: an AccumulateGrad node of loss's graph holds it


def why_grad_is_none(tensor, loss):
    """Return NO_REQUIRES_GRAD, NOT_A_LEAF, NOT_REACHED or REACHED for `tensor`, after a
    backward pass from `loss` has run. Check in the chapter's order and return the first reason
    that holds: requires_grad, then is_leaf, then whether the graph of `loss` reaches the tensor
    (walk from loss.grad_fn along next_functions; a leaf is reached when an AccumulateGrad
    node's .variable is the tensor itself). Never read .grad; do not run backward again."""
    raise NotImplementedError("check requires_grad, then is_leaf, then the graph")


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
