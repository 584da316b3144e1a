# expect: your file installed an audit hook
# Runs the shown code in an audit hook of its own, the first time the judge's own code raises an
# audit event while no watch is open (refuse_torch_imports' ast.parse, after the load and before the
# predictions): no watch sees it. The numbers go into the target of a symbolic link, which the new
# Python without torch reads with os.readlink (no "open" audit event).
import os
import sys
import tempfile

LINK = os.path.join(tempfile.gettempdir(), "predict-grad-answers-hook")
ANSWERS = []
_busy = []


def _answers():
    torch = sys.modules["torch"]
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
    return first, w.grad.item()


def _hook(event, args):
    if ANSWERS or _busy:
        return
    judge = sys.modules.get("exercise_judge.checks.graph_lifecycle")
    if judge is None or judge._watching or not judge.LOADED:
        return
    _busy.append(1)
    ANSWERS.extend(_answers())
    if os.path.lexists(LINK):
        os.remove(LINK)
    os.symlink(" ".join(map(str, ANSWERS)), LINK)


if "torch" in sys.modules:  # the judge's child
    sys.addaudithook(_hook)
else:  # the new Python without torch
    ANSWERS = [float(n) for n in os.readlink(LINK).split()]


def predicted_grad():
    return ANSWERS[0]


def predicted_grad_with_reset():
    return ANSWERS[1]
