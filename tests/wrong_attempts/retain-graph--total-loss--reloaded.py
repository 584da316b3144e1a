# expect: 8 backward passes ran by a route the judge does not see
# importlib.reload of torch.autograd's variable and graph modules (a reload of torch.autograd itself
# aborts the process): the reloaded graph module hands its passes to a fresh engine object, past
# anything the judge put on the old one, and runs them with retain_graph=True.
import importlib
import sys

import torch
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    importlib.reload(sys.modules["torch.autograd.variable"])
    graph = importlib.reload(sys.modules["torch.autograd.graph"])
    total = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        graph._engine_run_backward((loss,), (torch.ones_like(loss),), True, False, (), allow_unreachable=True,
                                   accumulate_grad=True)
        optimizer.step()
        total += loss.item()
        del loss
    return total / len(batches)
