import re

import torch

from measured import glue

x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
s = x.sigmoid().detach()
true_grad = s * (1 - s)  # sigmoid' = s * (1 - s)

print(f"{'edit through':14}{'y._version':12}backward")
for how in ("detach()", "data"):
    x.grad = None
    y = x.sigmoid()  # SigmoidBackward0 saves y
    edited = y.detach() if how == "detach()" else y.data
    edited.add_(1)  # the same storage as y, edited behind autograd's back
    try:
        y.sum().backward()
        grad = [round(g, 4) for g in x.grad.tolist()]
        print(f"{'y.' + how:14}{y._version:<12}ran: x.grad = {grad}")
    except RuntimeError as error:
        names = re.search(r"output \d+ of \w+", str(error)).group()
        print(f"{'y.' + how:14}{y._version:<12}RuntimeError: … {names} …")
print(f"{'true gradient':26}sigmoid'(x) = "
      f"{[round(g, 4) for g in true_grad.tolist()]}")

error = (x.grad - true_grad).abs().max().item()  # x.grad from the .data run
print(f"the .data gradient is wrong by up to {error:.4f}")
glue("inplace_data_error", round(error, 4))
