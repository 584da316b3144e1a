# expect: which skips the model's hooks, not the recording
# Records the whole graph: hooks of its own hide the saved tensors, and model.forward(x) skips the model's hooks.
import torch


def evaluate(model, batches):
    model.eval()
    correct = total = 0
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        for x, y in batches:
            logits = model.forward(x)
            correct += (logits.argmax(dim=1) == y).sum().item()
            total += len(y)
    model.train()
    return correct / total
