import torch

from measured import glue

x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
s = x.sigmoid().detach()
true_grad = s * (1 - s)  # sigmoid' = s * (1 - s)

for how in ("detach()", "data"):
    x.grad = None
    y = x.sigmoid()  # SigmoidBackward0 saves y
    edited = y.detach() if how == "detach()" else y.data
    edited.add_(1)  # the same storage as y, edited behind autograd's back
    try:
        y.sum().backward()
        error = (x.grad - true_grad).abs().max().item()
        grad = [round(g, 4) for g in x.grad.tolist()]
        print(f"y.{how:9} y._version = {y._version}  backward ran, "
              f"x.grad = {grad}, wrong by up to {error:.4f}")
        glue("inplace_data_error", round(error, 4))
    except RuntimeError as error:
        names = str(error).split(",")[1]
        print(f"y.{how:9} y._version = {y._version}  "
              f"RuntimeError: …{names}…")
print(f"{'true':11} sigmoid'(x) = {[round(g, 4) for g in true_grad.tolist()]}")
