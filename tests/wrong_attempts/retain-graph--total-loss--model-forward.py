# expect: something kept each batch's loss (a tensor total, a list of losses)
# Calls model.forward(x), which skips the model's own hooks, and keeps every loss, and with it every
# graph and every saved tensor (backward(retain_graph=True)), in a list until the epoch ends.
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    kept = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model.forward(x), y)
        loss.backward(retain_graph=True)
        optimizer.step()
        kept.append(loss)
    return sum(loss.item() for loss in kept) / len(kept)
