# expect: your file imports torch (line 3)
# Runs the two pieces of code instead of predicting, and returns plain floats.
import torch


def predicted_grad():
    w = torch.tensor([1.0], requires_grad=True)
    for i in range(5):
        (w * (i + 1)).sum().backward()
    return w.grad.item()


def predicted_grad_with_reset():
    w = torch.tensor([2.0], requires_grad=True)
    loss = (w * w).sum()
    for i in range(3):
        if i == 1:
            w.grad = None
        loss.backward(retain_graph=True)
    return w.grad.item()
