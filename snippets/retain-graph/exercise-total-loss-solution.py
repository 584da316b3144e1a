"""Reference solution: sum each batch's loss as a Python float, with loss.item()."""

import torch
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    total = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        # A float has no graph: this batch's graph is freed when `loss` is rebound.
        total += loss.item()
    return total / len(batches)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(8)]
    mean_loss = train_epoch(model, optimizer, batches)
    print(type(mean_loss).__name__, mean_loss)
