# expect: saw nothing saved in forward
# Keeps every step's graph with retain_graph=True, under saved_tensors_hooks of its own that hide the saved tensors.
import torch
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    total = 0.0
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        for x, y in batches:
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward(retain_graph=True)
            optimizer.step()
            total += loss.item()
    return total / len(batches)
