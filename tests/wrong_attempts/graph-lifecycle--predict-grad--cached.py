# expect: the predictions ran a backward pass
# Runs the shown code on the first call only and caches the number, so that later calls run nothing;
# torch comes in through importlib, so no import statement names it.
import functools
import importlib

torch = importlib.import_module("torch")


@functools.cache
def predicted_grad():
    w = torch.tensor([1.0], requires_grad=True)
    for i in range(5):
        (w * (i + 1)).sum().backward()
    return w.grad.item()


@functools.cache
def predicted_grad_with_reset():
    w = torch.tensor([2.0], requires_grad=True)
    loss = (w * w).sum()
    for i in range(3):
        if i == 1:
            w.grad = None
        loss.backward(retain_graph=True)
    return w.grad.item()
