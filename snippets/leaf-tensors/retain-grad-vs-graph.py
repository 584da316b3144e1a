import warnings

import torch


def run(keep):
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    h = x * 3
    if keep == "h.retain_grad()":
        h.retain_grad()
    loss = (h * h).sum()
    loss.backward(retain_graph=keep == "backward(retain_graph=True)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        h_grad = h.grad
    print(f"{keep}:")
    if h_grad is None:
        warned = " (+ UserWarning)" if caught else ""
        print(f"  h.grad after backward: None{warned}")
    else:
        print("  h.grad after backward:", h_grad.tolist())
    try:
        loss.backward()
        print(f"  second backward:       works, x.grad = {x.grad.tolist()}")
    except RuntimeError as error:
        message = str(error).split(" (")[0]  # the first clause is enough here
        print(f"  second backward:       RuntimeError: {message}")


for keep in ("h.retain_grad()", "backward(retain_graph=True)"):
    run(keep)
