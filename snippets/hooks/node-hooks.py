import torch
from torch import nn
from torch.autograd.graph import register_multi_grad_hook

from measured import glue

# The two leaves and the intermediate of the first section.
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
h = x * w
node = h.grad_fn  # the node that turns d loss / d h into the gradients of x and w
print("h.grad_fn:", type(node).__name__)


def before(grad_outputs):
    print("prehook: grad_outputs", [g.tolist() for g in grad_outputs])


def after(grad_inputs, grad_outputs):
    print("hook:    grad_inputs ", [g.tolist() for g in grad_inputs])


handles = [node.register_prehook(before), node.register_hook(after)]
(h * h).sum().backward()
for handle in handles:
    handle.remove()

# A node hook that returns a tuple replaces grad_inputs: here x's becomes zero.
x.grad = w.grad = None
h = x * w
handle = h.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] * 0, grad_inputs[1]))
(h * h).sum().backward()
handle.remove()
print("hook returns (zeros, grad_w): x.grad", x.grad.tolist(), " w.grad", w.grad.tolist())

# One call per backward for several tensors, once all their gradients are computed;
# a tensor this backward does not reach comes as None.
calls = []
handle = register_multi_grad_hook((x, w), lambda grads: calls.append(
    [None if g is None else g.tolist() for g in grads]))
(x * w).sum().backward()
(x * 5).sum().backward()
handle.remove()
print("multi-grad hook on (x, w):", calls)

# A parameter's AccumulateGrad node, the one that adds into .grad, hooked and never
# removed: the next forward reuses that node while an earlier graph still holds it.
p = nn.Parameter(torch.ones(2))
loss = (p * 2).sum()
accumulate = loss.grad_fn.next_functions[0][0].next_functions[0][0]
print("the node that adds into p.grad:", type(accumulate).__name__)
runs = []
accumulate.register_prehook(lambda grad_outputs: runs.append(1))
del accumulate
loss.backward()
passes = 1
for _ in range(3):
    (p * 3).sum().backward()  # new forwards, while loss still holds the first graph
    passes += 1
alive = len(runs)
print(f"backward passes while loss is alive: {passes}, hook runs: {alive}")
del loss
(p * 3).sum().backward()
print("hook runs in one more backward after del loss:", len(runs) - alive)
glue("hooks_node_runs_alive", alive)
glue("hooks_node_runs_after", len(runs) - alive)
glue("hooks_node_passes_alive", passes)
