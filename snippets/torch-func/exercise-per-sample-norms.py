"""Exercise: the gradient norm of every sample, with vmap, grad and functional_call.

Fill in `per_sample_norms`, then judge it:
    python -m exercise_judge torch-func/per-sample-norms exercise-per-sample-norms.py
(pip installs the judge: see the chapter's exercises). Add --lang zh for a verdict in Chinese.
"""

import torch
from torch import nn
from torch.func import functional_call, grad, vmap  # noqa: F401  (what you will need)


def per_sample_norms(model, loss_fn, x, y):
    """Return a tensor of shape [len(x)]: entry i is the norm of the gradient of
    loss_fn(model(x[i:i+1]), y[i:i+1]) with respect to all of the model's parameters
    together (the square root of the sum of every parameter's squared gradient entries).

    Use torch.func (vmap over grad, with functional_call), not backward(), and leave every
    parameter's .grad as it was.
    """
    raise NotImplementedError("vmap(grad(loss of one sample)) over the batch")


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 1))
    print(per_sample_norms(model, nn.functional.mse_loss, torch.randn(16, 5), torch.randn(16, 1)))
