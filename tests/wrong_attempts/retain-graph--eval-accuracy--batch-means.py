# expect: that is the mean of the per-batch accuracies
# Averages the per-batch accuracies: another number when the last batch is shorter.
import torch


def evaluate(model, batches):
    model.eval()
    accuracies = []
    with torch.no_grad():
        for x, y in batches:
            accuracies.append((model(x).argmax(dim=1) == y).float().mean().item())
    model.train()
    return sum(accuracies) / len(accuracies)
