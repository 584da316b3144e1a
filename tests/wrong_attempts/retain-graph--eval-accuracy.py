# expect: an accuracy has no gradient, and evaluation needs no backward
# The seeds' evaluation loop: it calls backward on the accuracy.
import torch


def evaluate(model, batches):
    model.eval()
    accuracies = []
    for x, y in batches:
        logits = model(x)
        preds = torch.argmax(logits, dim=1)
        acc = (preds == y).float().mean()
        acc.backward()
        accuracies.append(acc.item())
    model.train()
    return sum(accuracies) / len(accuracies)
