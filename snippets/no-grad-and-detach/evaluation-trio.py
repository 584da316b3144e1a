import contextlib

import torch
from torch import nn

from measured import glue, saved_tensors

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 1))
x = torch.randn(32, 8)
bn = model[1]

print(f"{'mode':24}{'out.requires_grad':19}{'saved tensors':15}{'same output twice':19}BatchNorm stats moved")
rows = {}
for train in (True, False):
    for grad_mode in (contextlib.nullcontext, torch.no_grad):
        model.train(train)
        stats = bn.running_mean.clone()
        with grad_mode(), saved_tensors() as saved:
            first, second = model(x), model(x)
        row = (first.requires_grad, saved.calls // 2, torch.equal(first, second),
               not torch.equal(stats, bn.running_mean))
        label = f"{'train()' if train else 'eval()'} + {'no_grad' if grad_mode is torch.no_grad else 'grad enabled'}"
        rows[label] = row
        print(f"{label:24}{row[0]!s:19}{row[1]:<15d}{row[2]!s:19}{row[3]}")
glue("ng_trio_saved_eval_grad", rows["eval() + grad enabled"][1])

# The third part of the trio: no backward. Under no_grad there is nothing to go back through.
model.eval()
with torch.no_grad():
    loss = model(x).pow(2).mean()
try:
    loss.backward()
except RuntimeError as error:
    print(f"backward of a loss computed under no_grad:\n  RuntimeError: {error}")
