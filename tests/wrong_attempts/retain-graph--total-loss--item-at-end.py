# expect: during the epoch up to 7 earlier batches' graphs were alive at once
# Keeps `total_loss += loss` and converts only at the end: every batch's graph lives until then.
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    total_loss = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss
    return (total_loss / len(batches)).item()
