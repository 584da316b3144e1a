import contextlib

import torch
from torch import nn

from measured import glue, saved_tensors

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(),
                      nn.Dropout(0.5), nn.Linear(16, 1))
x = torch.randn(32, 8)
batch_norm = model[1]

print(f"{'mode':23}{'requires_grad':15}{'saved':7}{'same output twice':19}"
      f"BN stats moved")
for train in (True, False):
    for no_grad in (False, True):
        model.train(train)
        stats = batch_norm.running_mean.clone()
        grad_mode = torch.no_grad() if no_grad else contextlib.nullcontext()
        with grad_mode, saved_tensors() as saved:
            first, second = model(x), model(x)
        saved_per_forward = saved.calls // 2
        moved = not torch.equal(stats, batch_norm.running_mean)
        label = (f"{'train()' if train else 'eval()'} + "
                 f"{'no_grad' if no_grad else 'grad enabled'}")
        print(f"{label:23}{first.requires_grad!s:15}{saved_per_forward:<7d}"
              f"{torch.equal(first, second)!s:19}{moved}")
        if not train and not no_grad:
            glue("ng_trio_saved_eval_grad", saved_per_forward)

# The third of the trio, no backward: under no_grad there is nothing
# to go back through.
model.eval()
with torch.no_grad():
    loss = model(x).pow(2).mean()
try:
    loss.backward()
except RuntimeError as error:
    print(f"backward of a loss computed under no_grad:\n"
          f"  RuntimeError: {error}")
