# expect: a backward pass ran during evaluation: evaluation has no loss
# Runs torch.autograd.grad on the logits, which leaves no .grad in the model.
import torch


def evaluate(model, batches):
    model.eval()
    correct = total = 0
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        for x, y in batches:
            logits = model.forward(x)
            torch.autograd.grad(logits.sum(), model[0].weight)
            correct += (logits.argmax(dim=1) == y).sum().item()
            total += len(y)
    model.train()
    return correct / total
