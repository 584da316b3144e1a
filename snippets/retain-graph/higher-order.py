import weakref
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from measured import SavedTensors, glue, roughly


@dataclass
class LiveSaved(SavedTensors):
    """SavedTensors plus a weak reference to each saved tensor."""

    refs: list = field(default_factory=list)

    def pack(self, tensor):
        kept = super().pack(tensor)
        self.refs.append(weakref.ref(kept))
        return kept

    def alive(self):
        return sum(ref() is not None for ref in self.refs)


def reaches(start, target):
    """Whether backward from `start` walks through the node `target`."""
    seen, todo = set(), [start]
    while todo:
        node = todo.pop()
        if node is target:
            return True
        if node is not None and node not in seen:
            seen.add(node)
            todo += [parent for parent, _ in node.next_functions]
    return False


torch.manual_seed(0)
X = torch.randn(64, 5, dtype=torch.float64)
y = torch.randint(0, 2, (64,)).double()
w = torch.randn(5, dtype=torch.float64, requires_grad=True)
v = torch.randn(5, dtype=torch.float64)  # Hessian-vector product: H @ v


def loss_of(w):
    return F.binary_cross_entropy_with_logits(X @ w, y)  # logistic regression


saved = LiveSaved()
with torch.autograd.graph.saved_tensors_hooks(saved.pack, saved.unpack):
    loss = loss_of(w)
    forward_node = loss.grad_fn.next_functions[0][0]  # the node of X @ w
    print(f"{'after the forward:':41}{saved.alive()} saved tensors alive")
    glue("rg_hvp_alive_forward", saved.alive())
    # create_graph=True: g is itself on a graph
    (g,) = torch.autograd.grad(loss, w, create_graph=True)
    label = "after grad(loss, w, create_graph=True):"
    print(f"{label:41}{saved.alive()} saved tensors alive")
    glue("rg_hvp_alive_create", saved.alive())
    print(f"g.grad_fn = {type(g.grad_fn).__name__}; g's graph reaches X @ w's "
          f"{type(forward_node).__name__}: {reaches(g.grad_fn, forward_node)}")
    (hv,) = torch.autograd.grad(g @ v, w)  # a backward through the backward

hessian = torch.autograd.functional.hessian(loss_of, w.detach())
difference = (hv - hessian @ v).abs().max().item()
print(f"H @ v, two grads vs full Hessian: max |difference| = {roughly(difference)}")
glue("rg_hvp_difference", difference, varies=True)

# The second grad kept nothing: it freed what X @ w saved as it passed through.
try:
    loss.backward()
except RuntimeError as error:
    short = str(error).split(" (")[0]
    print(f"loss.backward() afterwards: RuntimeError: {short} (…)")
