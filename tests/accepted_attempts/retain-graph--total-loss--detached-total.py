# A right solution that sums loss.detach() as a tensor, with no graph, and calls .item() once at the end.
import torch
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    total = torch.zeros(())
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.detach()
    return (total / len(batches)).item()
