# expect: grad mode still off
# Turns grad mode off for good with torch.set_grad_enabled(False): the next training epoch records nothing.
import torch


def evaluate(model, batches):
    torch.set_grad_enabled(False)
    model.eval()
    correct = total = 0
    for x, y in batches:
        correct += (model(x).argmax(dim=1) == y).sum().item()
        total += len(y)
    model.train()
    return correct / total
