import re

import torch

from measured import glue

torch.manual_seed(0)
lin = torch.nn.Linear(3, 3)
q = torch.randn(2, 3, requires_grad=True)  # a second operand that requires grad
m = torch.randn(2, 3)  # a constant operand (a mask, say): no grad


# Each case runs one operation, then calls edit(target, node): target is the tensor to edit,
# node the operation's backward node. edit() edits in place, or out of place for a reference
# run. The case returns the loss.
def sigmoid_out(x, edit):
    y = x.sigmoid()
    return edit(y, y.grad_fn).sum()


def exp_out(x, edit):
    y = x.exp()
    return edit(y, y.grad_fn).sum()


def tanh_out(x, edit):
    y = x.tanh()
    return edit(y, y.grad_fn).sum()


def relu_out(x, edit):
    y = x.relu()
    return edit(y, y.grad_fn).sum()


def mul_in(x, edit):
    a = x.clone()  # not a leaf, so that editing it is allowed at all
    c = a * q
    edit(a, c.grad_fn)
    return c.sum()


def pow_in(x, edit):
    a = x.clone()
    c = a ** 2
    edit(a, c.grad_fn)
    return c.sum()


def linear_in(x, edit):
    a = x.clone()
    h = lin(a)
    edit(a, h.grad_fn)
    return h.sum()


def linear_data_in(x, edit):
    data = x.detach().clone()  # an input batch: a leaf that requires no grad
    h = lin(data)
    edit(data, h.grad_fn)
    return h.sum()


def mul_out(x, edit):
    c = x * q
    return edit(c, c.grad_fn).sum()


def mul_scalar_in(x, edit):
    a = x.clone()
    c = a * 3
    edit(a, c.grad_fn)
    return c.sum()


def mul_const_in(x, edit):
    a = x.clone()
    c = a * m
    edit(a, c.grad_fn)
    return c.sum()


def add_in(x, edit):
    a = x.clone()
    c = a + 5
    edit(a, c.grad_fn)
    return c.sum()


def linear_out_relu(x, edit):
    h = lin(x)
    return edit(h, h.grad_fn, relu=True).sum()


def linear_out_add(x, edit):
    h = lin(x)
    return edit(h, h.grad_fn).sum()


CASES = [
    ("y = x.sigmoid(); y.add_(1)", sigmoid_out),
    ("y = x.exp(); y.add_(1)", exp_out),
    ("y = x.tanh(); y.add_(1)", tanh_out),
    ("y = x.relu(); y.add_(1)", relu_out),
    ("c = a * q; a.add_(1)", mul_in),
    ("c = a ** 2; a.add_(1)", pow_in),
    ("h = lin(a); a.add_(1)", linear_in),
    ("h = lin(data); data.add_(1)", linear_data_in),
    ("c = x * q; c.add_(1)", mul_out),
    ("c = a * 3; a.add_(1)", mul_scalar_in),
    ("c = a * m; a.add_(1)", mul_const_in),
    ("c = a + 5; a.add_(1)", add_in),
    ("h = lin(x); h.relu_()", linear_out_relu),
    ("h = lin(x); h.add_(1)", linear_out_add),
]


def describe_saved(node, target):
    """The tensors among the node's _saved_* attributes, * on the one that is target."""
    found, hit = [], False
    for name in sorted(dir(node)):
        value = getattr(node, name) if name.startswith("_saved_") else None
        if not isinstance(value, torch.Tensor):
            continue  # shapes, strides, alpha, exponent: plain numbers, never version-checked
        short = name[len("_saved_"):]
        if value.dim() == 0:
            found.append(f"{short}={value.item():g}")  # a Python number, wrapped in a tensor
        else:
            same = value.untyped_storage().data_ptr() == target.untyped_storage().data_ptr()
            hit |= same
            found.append(short + ("*" if same else ""))
    return " ".join(found) or "-", hit


def run(case, inplace):
    """x.grad after backward, or the error; and what the node had saved before the edit."""
    seen = {}

    def edit(target, node, relu=False):
        seen["node"] = node.name()
        seen["saved"], seen["hit"] = describe_saved(node, target)
        if relu:
            return target.relu_() if inplace else target.relu()
        return target.add_(1) if inplace else target + 1

    x = torch.randn(2, 3, requires_grad=True)
    try:
        case(x, edit).backward()
        return x.grad, seen, None
    except RuntimeError as error:
        return None, seen, error


print(f"{'case':29}{'node':18}{'saved tensors':15}backward   (* = the edited tensor)")
rule_holds = broken = 0
for label, case in CASES:
    torch.manual_seed(1)
    grad, seen, error = run(case, inplace=True)
    torch.manual_seed(1)
    reference, _, _ = run(case, inplace=False)  # the same edit, out of place
    if error is None:
        outcome = "ok, same x.grad as out of place" if grad.equal(reference) else "ok, but x.grad differs"
    else:
        names = re.search(r"which is (output \d+ of \w+)", str(error))
        outcome = f"error: {names.group(1) if names else 'no producer named'}"
        broken += 1
    rule_holds += (error is not None) == seen["hit"]
    print(f"{label:29}{seen['node']:18}{seen['saved']:15}{outcome}")

print(f"\n{broken} of {len(CASES)} edits break backward. "
      f"Broken exactly when a * is in the row: {rule_holds} of {len(CASES)} rows")
glue("inplace_cases", len(CASES))
glue("inplace_cases_broken", broken)
glue("inplace_cases_fine", len(CASES) - broken)
glue("inplace_rule_holds", rule_holds)
