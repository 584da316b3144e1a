import torch
import torch.nn.functional as F

from measured import draw_graph, glue

BATCHES = 3
glue("rg_draw_batches", BATCHES)

torch.manual_seed(0)
w = torch.zeros(3, 1, requires_grad=True)  # small: a legible drawing
total_loss = 0.0
for _ in range(BATCHES):
    x, y = torch.randn(2, 3), torch.randn(2, 1)
    total_loss += F.mse_loss(x @ w, y)  # one more AddBackward0 on top

# Drawn from total_loss.grad_fn: every batch's graph still hangs below it.
drawing = draw_graph(total_loss, {w: "w"})
print(drawing)
glue("rg_total_graph_fig", drawing)
glue("rg_total_graph_nodes", len(drawing.nodes))
