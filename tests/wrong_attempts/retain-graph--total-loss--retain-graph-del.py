# expect: backward passes had retain_graph=True
# Sums floats and calls backward(retain_graph=True), then deletes the loss before the next forward, so
# that no saved tensor outlives its batch: the task keeps backward() without retain_graph.
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    total = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward(retain_graph=True)
        optimizer.step()
        total += loss.item()
        del loss
    return total / len(batches)
