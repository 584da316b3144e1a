import re

import torch

from measured import glue

torch.manual_seed(0)
lin = torch.nn.Linear(3, 3)
q = torch.randn(2, 3, requires_grad=True)  # a second operand needing grad
m = torch.randn(2, 3)  # a constant operand (a mask, say): no grad

# (case, operation, what gets edited after it ran, the edit)
CASES = [
    ("y = a.sigmoid(); y.add_(1)", torch.sigmoid, "output", "add_"),
    ("y = a.exp(); y.add_(1)", torch.exp, "output", "add_"),
    ("y = a.tanh(); y.add_(1)", torch.tanh, "output", "add_"),
    ("y = a.relu(); y.add_(1)", torch.relu, "output", "add_"),
    ("c = a * q; a.add_(1)", lambda a: a * q, "input", "add_"),
    ("c = a ** 2; a.add_(1)", lambda a: a ** 2, "input", "add_"),
    ("h = lin(a); a.add_(1)", lin, "input", "add_"),
    ("h = lin(data); data.add_(1)", lin, "data", "add_"),
    ("c = a * q; c.add_(1)", lambda a: a * q, "output", "add_"),
    ("c = a * 3; a.add_(1)", lambda a: a * 3, "input", "add_"),
    ("c = a * m; a.add_(1)", lambda a: a * m, "input", "add_"),
    ("c = a + 5; a.add_(1)", lambda a: a + 5, "input", "add_"),
    ("h = lin(a); h.relu_()", lin, "output", "relu_"),
    ("h = lin(a); h.add_(1)", lin, "output", "add_"),
]
# Each edit in place, and the same edit out of place for a reference run.
EDITS = {"add_": (lambda t: t.add_(1), lambda t: t + 1),
         "relu_": (lambda t: t.relu_(), lambda t: t.relu())}


def describe_saved(node, target):
    """The node's saved tensors (_saved_*), * on the one that is target."""
    found, hit = [], False
    for name in sorted(dir(node)):
        value = getattr(node, name) if name.startswith("_saved_") else None
        if not isinstance(value, torch.Tensor):
            continue  # sizes, strides, alpha, exponent: plain numbers
        short = name[len("_saved_"):]
        if value.dim() == 0:
            found.append(f"{short}={value.item():g}")  # a wrapped number
        else:
            same = (value.untyped_storage().data_ptr()
                    == target.untyped_storage().data_ptr())
            hit |= same
            found.append(short + ("*" if same else ""))
    return " ".join(found) or "-", hit


def run(operation, edited, edit, inplace):
    """What the node saved (read before the edit), then x.grad or the error."""
    torch.manual_seed(1)
    x = torch.randn(2, 3, requires_grad=True)
    # a = x.clone() is not a leaf (editing a leaf that requires grad is
    # refused outright); data is an input batch, a leaf that requires no grad.
    a = x.detach().clone() if edited == "data" else x.clone()
    out = operation(a)
    target = out if edited == "output" else a
    node = out.grad_fn.name().removesuffix("Backward0")
    saved, hit = describe_saved(out.grad_fn, target)
    new = EDITS[edit][0 if inplace else 1](target)
    loss = (new if edited == "output" else out).sum()
    try:
        loss.backward()
        return node, saved, hit, x.grad, None
    except RuntimeError as error:
        return node, saved, hit, None, error


print("node: grad_fn minus 'Backward0'; saved: its _saved_* tensors, "
      "* = edited\n")
print(f"{'case':28}{'node':9}{'saved':13}backward")
rule_holds = broken = 0
for label, operation, edited, edit in CASES:
    node, saved, hit, grad, error = run(operation, edited, edit, inplace=True)
    if error is None:
        reference = run(operation, edited, edit, inplace=False)[3]
        same = "as" if grad.equal(reference) else "NOT as"
        outcome = f"ok, x.grad {same} out of place"
    else:
        names = re.search(r"which is (output \d+ of \w+)", str(error))
        outcome = f"error: {names.group(1) if names else 'no producer named'}"
        broken += 1
    rule_holds += (error is not None) == hit
    print(f"{label:28}{node:9}{saved:13}{outcome}")

print(f"\n{broken} of {len(CASES)} edits break backward.")
print(f"Broken exactly when the row has a *: "
      f"{rule_holds} of {len(CASES)} rows")
glue("inplace_cases", len(CASES))
glue("inplace_cases_broken", broken)
glue("inplace_cases_fine", len(CASES) - broken)
glue("inplace_rule_holds", rule_holds)
