# expect: 8 of the 8 backward passes had retain_graph=True
# The engine torch.autograd hands every pass to, called directly with keep_graph=True (retain_graph under
# its engine name), past torch.autograd.backward and anything wrapped around it.
import torch
import torch.nn.functional as F
from torch.autograd.variable import Variable


def train_epoch(model, optimizer, batches):
    total = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        Variable._execution_engine.run_backward((loss,), (torch.ones_like(loss),), True, False, (), True, True)
        optimizer.step()
        total += loss.item()
        del loss
    return total / len(batches)
