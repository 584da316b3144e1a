"""Exercise: return an epoch's mean loss as a float, and keep no graph alive.

`train_epoch` below trains correctly, but it sums the losses as tensors: `total_loss += loss`
hangs every batch's graph on `total_loss`, and the function hands that graph back to its caller.
Fix it, then judge it:
    python -m exercise_judge retain-graph/total-loss exercise-total-loss.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""

import torch
import torch.nn.functional as F


def train_epoch(model, optimizer, batches):
    """Train `model` for one epoch: for each (x, y) in `batches`, zero the gradients, compute
    F.mse_loss(model(x), y), call backward() on it and step the optimizer (keep that part as it is).

    Return the epoch's mean loss, the mean of the batches' losses (each taken before its
    optimizer step), as a Python float. When a batch's forward begins, at most the previous
    batch's graph may still be alive (the variable `loss` holds it until it is rebound), with its
    saved tensors already freed by a plain backward() (no retain_graph); none may be alive after
    the function returns. Add each loss to the total as a float (or as loss.detach(), a tensor
    with no graph, made a float once at the end).
    """
    total_loss = 0.0
    for x, y in batches:
        optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss  # a tensor: every batch's graph ends up under total_loss
    return total_loss


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(torch.randn(16, 4), torch.randn(16, 1)) for _ in range(8)]
    mean_loss = train_epoch(model, optimizer, batches)
    print(type(mean_loss).__name__, mean_loss)
