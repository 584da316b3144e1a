import torch
from torch import nn

from measured import draw_graph, glue

torch.manual_seed(0)
# The chapter's model in miniature: Linear layers with ReLU between, batch 2.
model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU(),
                      nn.Linear(4, 4))
x = torch.randn(2, 4)  # the input needs no gradient
out = model(x).sum()

names = {p: name for name, p in model.named_parameters()}
drawing = draw_graph(out, names)
print(drawing)
glue("gm_draw_fig", drawing)
glue("gm_draw_saved", drawing.saved)
