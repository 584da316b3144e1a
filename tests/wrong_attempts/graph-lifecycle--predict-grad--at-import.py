# expect: loading your file ran a backward pass
# Runs the shown code while the file is loaded and returns the numbers it kept; torch comes in
# through importlib, so no import statement names it.
import importlib

torch = importlib.import_module("torch")

w = torch.tensor([1.0], requires_grad=True)
for i in range(5):
    (w * (i + 1)).sum().backward()
FIRST = w.grad.item()

w = torch.tensor([2.0], requires_grad=True)
loss = (w * w).sum()
for i in range(3):
    if i == 1:
        w.grad = None
    loss.backward(retain_graph=True)
SECOND = w.grad.item()


def predicted_grad():
    return FIRST


def predicted_grad_with_reset():
    return SECOND
