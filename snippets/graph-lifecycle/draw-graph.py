import torch

from measured import draw_graph, glue

x = torch.tensor([2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0], requires_grad=True)
loss = (x * 3 * w).exp().sum()

# The drawing walks loss.grad_fn and its next_functions: the very objects
# backward will use.
before = draw_graph(loss, {x: "x", w: "w"})
print("before backward:", before)
glue("graph_before_fig", before)

loss.backward()
after = draw_graph(loss, {x: "x", w: "w"})
print("after backward: ", after)
glue("graph_after_fig", after)
