"""Exercise: make four micro-batches leave the gradient of one big batch.

Fill in `accumulate`, then judge it from the repository root:
    nox -s judge -- gradient-accumulation/micro-batches snippets/gradient-accumulation/exercise-micro-batches.py
(or a copy of this file, anywhere). Add --lang zh for a verdict in Chinese.
"""

import torch


def accumulate(model, loss_fn, x, y, steps):
    """Split x and y into `steps` equal micro-batches, run a forward and a backward() on each
    one, and leave in every parameter's .grad the gradient that loss_fn(model(x), y).backward()
    would give, up to float32 rounding. Do not call an optimizer; every .grad starts as None."""
    raise NotImplementedError("split the batch, backward each part")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.nn.Linear(5, 1)
    accumulate(model, torch.nn.functional.mse_loss, torch.randn(64, 5), torch.randn(64, 1), steps=4)
    print(model.weight.grad)
