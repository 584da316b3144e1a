"""Exercise: freeze the first k layers of a model two ways, and see what each one cuts.

Fill in `freeze_first` and `forward_cut`, then judge them:
    python -m exercise_judge no-grad-and-detach/freeze-two-ways exercise-freeze-two-ways.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.

"The first k layers" are the first k entries of an nn.Sequential, model[0] … model[k - 1]
(an activation such as nn.Tanh counts as an entry; it simply has no parameters).
"""

import torch
from torch import nn


def freeze_first(model, k):
    """Freeze the first k layers of the nn.Sequential `model` in place, so that from now on no
    backward gives their parameters a gradient. The model must compute exactly what it computed
    before, and the gradient must still flow through the frozen layers to the input.
    Return nothing."""
    raise NotImplementedError("freeze the parameters of model[:k]")


def forward_cut(model, x, k):
    """Return model(x), computed so that nothing before the output of model[k - 1] gets a gradient
    from a backward through the result: cut the activation after the first k layers.
    Leave the parameters as they are (they must all keep requires_grad=True)."""
    raise NotImplementedError("run model[:k], cut, run the rest")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
    forward_cut(model, torch.randn(8, 6), k=3).sum().backward()
    for name, p in model.named_parameters():
        print(f"model[{name.split('.')[0]}].{name.split('.')[1]:7}", "None" if p.grad is None else "gradient")
