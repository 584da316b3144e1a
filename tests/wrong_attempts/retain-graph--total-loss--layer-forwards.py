# expect: forwards of the model's first layer for
# Runs each layer's forward method by hand, which skips every module hook, and keeps every loss.
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    kept = []
    for x, y in batches:
        optimizer.zero_grad()
        out = x
        for layer in model:
            out = layer.forward(out)
        loss = F.mse_loss(out, y)
        loss.backward()
        optimizer.step()
        kept.append(loss)
    return sum(loss.item() for loss in kept) / len(kept)
