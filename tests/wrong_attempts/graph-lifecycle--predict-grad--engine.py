# expect: the predictions ran a backward pass 5 times
# Runs the shown code, but hands the backward passes to the autograd engine directly instead of
# torch.autograd.backward; torch comes in through importlib, so no import statement names it.
import importlib


def _run(loss, retain_graph):
    torch = importlib.import_module("torch")
    engine = torch.autograd.Variable._execution_engine
    engine.run_backward((loss,), (torch.ones(()),), retain_graph, False, (), True, True)


def predicted_grad():
    torch = importlib.import_module("torch")
    w = torch.tensor([1.0], requires_grad=True)
    for i in range(5):
        _run((w * (i + 1)).sum(), False)
    return w.grad.item()


def predicted_grad_with_reset():
    torch = importlib.import_module("torch")
    w = torch.tensor([2.0], requires_grad=True)
    loss = (w * w).sum()
    for i in range(3):
        if i == 1:
            w.grad = None
        _run(loss, True)
    return w.grad.item()
