# expect: 8 of the 8 backward passes were not backward(): the task keeps the starter's loss.backward()
# Sums floats, but replaces loss.backward() by torch.autograd.grad and sets each .grad by hand.
import torch
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    total = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        params = list(model.parameters())
        for p, g in zip(params, torch.autograd.grad(loss, params)):
            p.grad = g
        optimizer.step()
        total += loss.item()
    return total / len(batches)
