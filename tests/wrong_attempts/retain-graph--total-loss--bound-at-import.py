# expect: 8 of the 8 backward passes had retain_graph=True
# `from torch.autograd import backward` at import time, then backward(loss, retain_graph=True): the name
# is bound before the epoch starts, so a wrapper put on torch.autograd.backward for the epoch misses it.
import torch.nn.functional as F
from torch.autograd import backward


def train_epoch(model, optimizer, batches):
    total = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        backward(loss, retain_graph=True)
        optimizer.step()
        total += loss.item()
        del loss
    return total / len(batches)
