"""Exercise: per-parameter gradient norms from hooks, with every hook removed afterwards.

Fill in `grad_norms`, then judge it:
    python -m exercise_judge hooks/grad-norms exercise-grad-norms.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""

import torch
from torch import nn


def grad_norms(model, loss):
    """Call loss.backward() once and return {name: norm} for every parameter of `model` (names as
    model.named_parameters() gives them, norms as Python floats; every parameter of the judge's models
    requires grad): the norm of the gradient this
    backward delivers to that parameter. .grad may already hold an earlier micro-batch's gradient, far
    larger than this one: let it accumulate as usual, but report this backward's part only. Read the
    gradients with hooks, as they arrive, and leave no hook registered when the function returns."""
    raise NotImplementedError("register a hook per parameter, backward, remove the hooks")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
    x, y = torch.randn(16, 6), torch.randn(16, 1)
    nn.functional.mse_loss(model(x[:8]), y[:8]).backward()  # an earlier micro-batch
    print(grad_norms(model, nn.functional.mse_loss(model(x[8:]), y[8:])))
