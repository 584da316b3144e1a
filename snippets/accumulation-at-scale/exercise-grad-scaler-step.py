"""Exercise: one accumulated training step in float16 with a GradScaler.

Fill in `accumulated_step`, then judge it:
    python -m exercise_judge accumulation-at-scale/grad-scaler-step exercise-grad-scaler-step.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""

import torch
from torch import nn


def accumulated_step(model, loss_fn, optimizer, scaler, micro_batches, max_norm):
    """For each (x, y) of `micro_batches`, one at a time: run the forward under
    torch.autocast("cpu", dtype=torch.float16) and call backward() on the loss scaled by
    `scaler.scale`. Then scaler.unscale_(optimizer), clip with
    nn.utils.clip_grad_norm_(model.parameters(), max_norm) (the judge checks that it runs between
    unscale_ and step and returns the true gradient's norm), and make ONE optimizer step through
    scaler.step(optimizer), then scaler.update(), so that the parameters end where one float32
    step on the whole batch (the micro-batches together, their mean loss) would put them, up to
    float16 rounding. Every .grad starts as None."""
    raise NotImplementedError("scale, backward, unscale_, clip, step, update")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    micro_batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(4)]
    accumulated_step(model, nn.functional.mse_loss, optimizer, torch.amp.GradScaler("cpu"),
                     micro_batches, max_norm=1.0)
    print(model.weight)
