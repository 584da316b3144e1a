# expect: after train_epoch returned, 8 batch graphs are still alive
# Returns a float, but keeps the tensor total, and every batch's graph with it, in a module-level list.
import torch.nn.functional as F

totals = []


def train_epoch(model, optimizer, batches):
    total_loss = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss
    totals.append(total_loss)
    return total_loss.item() / len(batches)
