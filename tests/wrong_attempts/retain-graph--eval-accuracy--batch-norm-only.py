# expect: dropout: training mode in 5 of 5 forwards
# Puts only the batch norm in eval mode: dropout stays in training mode in every forward.
import torch


def evaluate(model, batches):
    model[1].eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in batches:
            correct += (model(x).argmax(dim=1) == y).sum().item()
            total += len(y)
    model.train()
    return correct / total
