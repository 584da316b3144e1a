import torch

from measured import glue

x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
true_grad = (x.sigmoid() * (1 - x.sigmoid())).detach()  # sigmoid' = s * (1 - s)

for how in ("detach()", "data"):
    x.grad = None
    y = x.sigmoid()  # SigmoidBackward0 saves y
    edited = y.detach() if how == "detach()" else y.data
    edited.add_(1)  # the same storage as y, edited behind autograd's back
    try:
        y.sum().backward()
        error = (x.grad - true_grad).abs().max().item()
        print(f"y.{how:9} y._version = {y._version}  backward ran, x.grad = "
              f"{[round(g, 4) for g in x.grad.tolist()]}, wrong by up to {error:.4f}")
        glue("inplace_data_error", round(error, 4))
    except RuntimeError as error:
        print(f"y.{how:9} y._version = {y._version}  RuntimeError: …{str(error).split(',')[1]}…")
print(f"{'true':11} sigmoid'(x) = {[round(g, 4) for g in true_grad.tolist()]}")
