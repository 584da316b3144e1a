"""Exercise: make four micro-batches leave the gradient of one big batch.

Fill in `accumulate`, then judge it:
    python -m exercise_judge gradient-accumulation/micro-batches exercise-micro-batches.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""

import torch


def accumulate(model, loss_fn, x, y, steps):
    """Split x and y into `steps` equal micro-batches. For each one in turn, run the forward, then
    call backward() on its loss divided by `steps` (that tensor alone, with no gradient argument),
    before the next micro-batch's forward. loss_fn
    averages over its samples (reduction="mean"), so that every parameter's .grad ends up with the
    gradient loss_fn(model(x), y).backward() would give, up to float32 rounding. Do not call an
    optimizer, and do not write .grad yourself; every .grad starts as None."""
    raise NotImplementedError("split the batch, call backward() on each part's loss")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = torch.nn.Linear(5, 1)
    accumulate(model, torch.nn.functional.mse_loss, torch.randn(64, 5), torch.randn(64, 1), steps=4)
    print(model.weight.grad)
