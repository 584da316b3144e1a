# expect: the predictions ran a backward pass
# Runs the shown code on the first call and keeps the numbers in builtins, outside the module, so
# that a fresh copy of the file finds them there and runs nothing; torch comes in through importlib.
import builtins
import importlib


def _numbers():
    if not hasattr(builtins, "_predicted"):
        torch = importlib.import_module("torch")
        w = torch.tensor([1.0], requires_grad=True)
        for i in range(5):
            (w * (i + 1)).sum().backward()
        first = w.grad.item()
        w = torch.tensor([2.0], requires_grad=True)
        loss = (w * w).sum()
        for i in range(3):
            if i == 1:
                w.grad = None
            loss.backward(retain_graph=True)
        builtins._predicted = (first, w.grad.item())
    return builtins._predicted


def predicted_grad():
    return _numbers()[0]


def predicted_grad_with_reset():
    return _numbers()[1]
