# expect: earlier batches' graphs were alive at once
# Calls the last layer through .forward(), which skips that layer's hooks, and keeps the bug
# `total_loss += loss`: every batch's graph hangs under total_loss until the end.
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    total_loss = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        h = model[1](model[0](x))
        loss = F.mse_loss(model[2].forward(h), y)
        loss.backward()
        optimizer.step()
        total_loss += loss
    return (total_loss / len(batches)).item()
