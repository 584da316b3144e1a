# expect: backward passes ran between the load of your file and the verdict that the judge did not run
# Runs the shown code from a profile function of its own (sys.setprofile, not an audit hook), on the
# judge's call of refuse_torch_imports, after the load and before the predictions: no watch sees it. The numbers go into the target
# of a symbolic link, which the new Python without torch reads with os.readlink (no "open" audit event).
import os
import sys
import tempfile

LINK = os.path.join(tempfile._candidate_tempdir_list()[0], "predict-grad-answers-profile")  # opens no file
ANSWERS = []


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


def _profile(frame, event, arg):
    if ANSWERS or event != "call" or frame.f_code.co_name != "refuse_torch_imports":
        return
    sys.setprofile(None)
    ANSWERS.extend(_answers())
    if os.path.lexists(LINK):
        os.remove(LINK)
    os.symlink(" ".join(map(str, ANSWERS)), LINK)


if "torch" in sys.modules:  # the judge's child
    sys.setprofile(_profile)
else:  # the new Python without torch
    ANSWERS = [float(n) for n in os.readlink(LINK).split()]


def predicted_grad():
    return ANSWERS[0]


def predicted_grad_with_reset():
    return ANSWERS[1]
