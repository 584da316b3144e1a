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
    h_grad = "None (+ UserWarning)" if h_grad is None and caught else str(h_grad.tolist())
    try:
        loss.backward()
        second = f"works, x.grad = {x.grad.tolist()}"
    except RuntimeError as error:
        second = f"RuntimeError: {str(error).split(' (')[0]}"
    return h_grad, second


print(f"{'':30}{'h.grad after backward':24}second backward")
for keep in ("h.retain_grad()", "backward(retain_graph=True)"):
    h_grad, second = run(keep)
    print(f"{keep:30}{h_grad:24}{second}")
