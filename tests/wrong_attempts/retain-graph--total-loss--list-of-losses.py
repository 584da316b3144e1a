# expect: something kept each batch's loss (a tensor total, a list of losses)
# Keeps the loss tensors in a list and sums their .item() at the end: every batch's graph lives until then.
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss)
    return sum(loss.item() for loss in losses) / len(losses)
