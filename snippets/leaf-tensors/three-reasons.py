import warnings

import torch
from torch import nn

torch.manual_seed(0)
x, y = torch.randn(8, 3), torch.randn(8, 1)
mse = nn.functional.mse_loss


def reaches(loss, t):
    """Does backward from loss arrive at the leaf t? Look for the
    AccumulateGrad node that holds it: none holds a non-leaf."""
    todo, seen = [loss.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or node in seen:  # each node once: a residual
            continue                      # network has 2^depth paths
        seen.add(node)
        if getattr(node, "variable", None) is t:
            return True
        todo += [next_node for next_node, _ in node.next_functions]
    return False


def why_grad_is_none(t, loss):
    """The checks of this chapter, in order."""
    if not t.requires_grad:
        return "1: does not require grad"
    if not t.is_leaf:
        return f"2: not a leaf (grad_fn {type(t.grad_fn).__name__})"
    if not reaches(loss, t):
        return "3: not reached (unused, or the path was cut)"
    return "on the graph: see how the gradients were computed"


def grad_of(t):
    with warnings.catch_warnings(record=True):  # a non-leaf's .grad warns
        warnings.simplefilter("always")
        return t.grad


# 1. A bias that was meant to be learned, created without requires_grad.
w1 = torch.randn(3, 1, requires_grad=True)
b1 = torch.zeros(1)
loss1 = mse(x @ w1 + b1, y)

# 2. A weight scaled after creation: the result of a multiplication.
w2 = torch.randn(3, 1, requires_grad=True) * 0.1
loss2 = mse(x @ w2, y)

# 3. The first layer run under no_grad (say, to save memory).
first, second = nn.Linear(3, 4), nn.Linear(4, 1)
with torch.no_grad():
    hidden = first(x)
loss3 = mse(second(hidden), y)

cases = [("b1", b1, loss1), ("w2", w2, loss2),
         ("first.weight", first.weight, loss3)]
for _, _, loss in cases:
    loss.backward()  # each backward runs without error: the loss has a graph


# Leaves on the graph that the pass itself left without a .grad.
class ScaleBy(torch.autograd.Function):
    """h * s; its backward gives s no gradient."""

    @staticmethod
    def forward(ctx, h, s):
        ctx.save_for_backward(s)
        return h * s

    @staticmethod
    def backward(ctx, grad):
        (s,) = ctx.saved_tensors
        return grad * s, None  # None: s gets no gradient


a, b = nn.Linear(3, 4), nn.Linear(4, 1)
loss4 = mse(b(a(x)), y)
loss4.backward(inputs=list(b.parameters()))  # only b's parameters
c = nn.Linear(3, 1)
loss5 = mse(c(x), y)
torch.autograd.grad(loss5, list(c.parameters()))  # returns, stores none
d, s = nn.Linear(3, 1), torch.ones(1, requires_grad=True)
loss6 = mse(ScaleBy.apply(d(x), s), y)
loss6.backward()
skipped = [("a.weight", a.weight, loss4), ("c.weight", c.weight, loss5),
           ("s", s, loss6)]

print(f"{'t':14}{'grad':6}{'requires_grad':15}{'is_leaf':9}reached")
for name, t, loss in cases + skipped:
    grad, reached = grad_of(t), reaches(loss, t)
    row = f"{name:14}{grad!s:6}{t.requires_grad!s:15}{t.is_leaf!s:9}"
    print(row + str(reached))
print("diagnosis:")
for name, t, loss in cases + skipped:
    print(f"  {name:14}{why_grad_is_none(t, loss)}")
print("the layer after it, second.weight.grad is None:",
      second.weight.grad is None)

# When the whole forward ran under no_grad, backward itself refuses.
with torch.no_grad():
    loss7 = mse(second(first(x)), y)
try:
    loss7.backward()
except RuntimeError as error:
    print(f"whole forward under no_grad: RuntimeError: {error}")
