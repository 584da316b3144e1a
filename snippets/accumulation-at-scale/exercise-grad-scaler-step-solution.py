"""Reference solution: scale every micro-batch loss (divided by their number), unscale_ once
before clipping, then one scaler.step and one scaler.update."""

import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    for x, y in micro_batches:
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        # divided by the number of micro-batches: their sum is the mean over the whole batch
        scaler.scale(loss / len(micro_batches)).backward()
    scaler.unscale_(optimizer)  # .grad now holds the true gradient: clip that, not the scaled one
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)  # skipped if any gradient is inf or NaN
    scaler.update()
    optimizer.zero_grad()


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    micro_batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(4)]
    accumulated_step(model, nn.functional.mse_loss, optimizer, torch.amp.GradScaler("cpu"),
                     micro_batches, max_norm=1.0)
    print(model.weight)
