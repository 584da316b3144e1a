# expect: it holds every batch's graph
# The usual first try: divide the tensor total, and return a tensor that still has a graph.
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    total_loss = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss
    return total_loss / len(batches)
