"""Checks behind in-place-operations' sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`in-place-operations/<name>` on a page names one)."""

import warnings

import torch
from torch import nn


def _raises_inplace_error(fn):
    """True if fn() raises the "modified by an inplace operation" error, False if it runs."""
    try:
        fn()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error), str(error)
        return True
    return False


def _allocated_bytes(fn):
    """Bytes of the new storages the operations run by fn() create, below autograd."""
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    class Allocated(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.bytes = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            inputs = {t.untyped_storage().data_ptr() for t in tree_leaves((args, kwargs))
                      if isinstance(t, torch.Tensor)}
            out = func(*args, **kwargs)
            self.bytes += sum(t.untyped_storage().nbytes() for t in tree_leaves(out)
                              if isinstance(t, torch.Tensor) and t.untyped_storage().data_ptr() not in inputs)
            return out

    with Allocated() as counter:
        result = fn()
    return counter.bytes, result


def underscore_methods_that_write_no_data_do_not_count():
    """`add_()`, `zero_()` and `+=` bump `_version`; `requires_grad_()`, which ends in `_` but writes no data, does not."""
    a = torch.zeros(3)
    a.requires_grad_()
    a.requires_grad_(False)
    assert a._version == 0
    a.add_(1)
    a.zero_()
    a += 1
    assert a._version == 3


def version_counts_the_edit_not_the_values():
    """Backward refuses a saved tensor edited in place even when the edit left its values as they were (`add_(0)`)."""
    x = torch.randn(3, requires_grad=True)
    y = x.sigmoid()
    before = y.detach().clone()
    y.add_(0)
    assert torch.equal(y, before) and y._version == 1
    assert _raises_inplace_error(lambda: y.sum().backward())


def anomaly_mode_records_a_traceback_per_node():
    """Under `set_detect_anomaly(True)` every recorded node keeps the traceback of its forward call; outside, none does."""
    x = torch.randn(3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.set_detect_anomaly(True):
            y = (x * 2).exp()
    for node in (y.grad_fn, y.grad_fn.next_functions[0][0]):
        assert "traceback_" in node.metadata
    assert "traceback_" not in (x * 2).exp().grad_fn.metadata


def anomaly_names_the_failing_node_for_a_saved_input():
    """For an edited saved input, the error names the in-place Add, and only anomaly detection's warning names `MulBackward0`."""
    torch.manual_seed(0)
    x, q = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.set_detect_anomaly(True):
            a = x.clone()
            c = a * q
            a.add_(1)
            try:
                c.sum().backward()
            except RuntimeError as error:
                assert "output 0 of Add" in str(error) and "Mul" not in str(error), str(error)
            else:
                raise AssertionError("backward did not fail")
    assert any("Error detected in MulBackward0" in str(w.message) for w in caught)


def multiplication_saves_an_input_only_for_the_other_gradient():
    """A multiplication saves an input only when the other operand requires grad: `a * m` with a constant `m` saves `m`, not `a`."""
    torch.manual_seed(0)
    x, q, m = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True), torch.randn(3)
    a = x.clone()
    node = (a * q).grad_fn
    assert node._saved_self is not None and node._saved_other is not None
    node = (a * m).grad_fn
    assert node._saved_self is None and node._saved_other is not None
    c = a * m
    a.add_(1)
    c.sum().backward()  # the edited a was not saved
    assert x.grad is not None


def linear_saves_input_only_for_weight_gradient():
    """A Linear saves its input only when its weight requires grad, and its weight only when its input does."""
    torch.manual_seed(0)
    lin = nn.Linear(3, 3).requires_grad_(False)
    x = torch.randn(2, 3, requires_grad=True)
    a = x.clone()
    h = lin(a)
    assert h.grad_fn._saved_mat1 is None and h.grad_fn._saved_mat2 is not None
    a.add_(1)
    h.sum().backward()  # a frozen Linear did not save the edited input
    lin.requires_grad_(True)
    h = lin(torch.randn(2, 3))
    assert h.grad_fn._saved_mat1 is not None and h.grad_fn._saved_mat2 is None


def edited_saved_tensor_off_the_backward_path_is_not_checked():
    """An edited saved tensor breaks only a backward that runs through the node that saved it."""
    x = torch.randn(3, requires_grad=True)
    y = x.sigmoid()
    z = x * 2
    y.add_(1)
    z.sum().backward()  # SigmoidBackward0 is not on this path
    assert _raises_inplace_error(lambda: y.sum().backward())


def relu_inplace_after_linear_saves_the_edited_tensor():
    """`relu_()` on a Linear's output records a `ReluBackward0` that saves the edited tensor itself, so backward runs."""
    torch.manual_seed(0)
    lin = nn.Linear(3, 3)
    h = lin(torch.randn(2, 3, requires_grad=True))
    h.relu_()
    assert h.grad_fn.name() == "ReluBackward0"
    assert h.grad_fn._saved_result.untyped_storage().data_ptr() == h.untyped_storage().data_ptr()
    h.sum().backward()


def no_grad_edit_keeps_the_counter_honest():
    """An edit under `torch.no_grad()` still bumps `_version`, so backward still catches it (unlike `.data`)."""
    x = torch.randn(3, requires_grad=True)
    y = x.sigmoid()
    with torch.no_grad():
        y.add_(1)
    assert y._version == 1
    assert _raises_inplace_error(lambda: y.sum().backward())


def optimizer_step_is_unrecorded_but_counted():
    """`SGD.step()` edits the parameter in place with recording off: it stays a leaf, its `_version` goes up, and a graph that saved it fails."""
    from torch.overrides import TorchFunctionMode

    class InPlaceCalls(TorchFunctionMode):
        def __init__(self):
            super().__init__()
            self.grad_enabled = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            name = getattr(func, "__name__", "")
            if name.endswith("_") and not name.startswith("__"):
                self.grad_enabled.append(torch.is_grad_enabled())
            return func(*args, **(kwargs or {}))

    w = nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    optimizer = torch.optim.SGD([w], lr=0.1)
    (w ** 2).sum().backward()
    loss = (w ** 2).sum()  # PowBackward0 saves w
    version = w._version
    with InPlaceCalls() as calls:
        optimizer.step()
    assert calls.grad_enabled and not any(calls.grad_enabled)
    assert w.is_leaf and w.grad_fn is None and w._version > version
    assert _raises_inplace_error(loss.backward)


def two_losses_each_with_its_own_step():
    """Two losses from one model, the first one's `step()` run before the second's `backward()`: that backward fails."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    first = model(torch.randn(5, 4)).pow(2).mean()
    second = model(torch.randn(5, 4)).pow(2).mean()  # its own forward, the same parameters
    first.backward()
    optimizer.step()
    assert _raises_inplace_error(second.backward)  # the second Linear saved its weight


def both_fixes_cover_every_breaking_row():
    """For every breaking kind of row in the table, writing the edit out of place and editing a clone both run and give equal `x.grad`."""
    torch.manual_seed(0)
    lin = nn.Linear(3, 3)
    q = torch.randn(2, 3, requires_grad=True)
    saves_output = [torch.sigmoid, torch.exp, torch.tanh, torch.relu]
    saves_input = [lambda a: a * q, lambda a: a ** 2, lin]

    def grad(build):
        torch.manual_seed(1)
        x = torch.randn(2, 3, requires_grad=True)
        build(x).backward()
        return x.grad

    for op in saves_output:
        reference = grad(lambda x: (op(x.clone()) + 1).sum())
        assert torch.equal(grad(lambda x: op(x.clone()).clone().add_(1).sum()), reference)
    for op in saves_input:
        def out_of_place(x):
            a = x.clone()
            c = op(a)
            a = a + 1
            return c.sum() + a.sum()

        def clone(x):
            a = x.clone()
            c = op(a.clone())
            a.add_(1)
            return c.sum() + a.sum()

        assert torch.equal(grad(clone), grad(out_of_place))
    data = torch.randn(2, 3)  # the data row: hand the Linear a clone
    h = lin(data.clone())
    data.add_(1)
    h.sum().backward()


def out_of_place_and_clone_allocate_the_same():
    """`y + 1` and `y.clone().add_(1)` allocate the same bytes: one tensor of `y`'s size."""
    x = torch.randn(1000, requires_grad=True)
    y = x.sigmoid()
    out_of_place, _ = _allocated_bytes(lambda: y + 1)
    cloned, _ = _allocated_bytes(lambda: y.clone().add_(1))
    assert out_of_place == cloned == y.untyped_storage().nbytes()


def inplace_mul_saves_a_clone_of_the_old_value():
    """`y.mul_(q)` with `q` requiring grad makes autograd clone the old `y` first: one allocation, like `y * q`."""
    torch.manual_seed(0)
    x, q = torch.randn(1024, requires_grad=True), torch.randn(1024, requires_grad=True)
    y = x * 2
    in_place, _ = _allocated_bytes(lambda: y.mul_(q))
    assert in_place == y.untyped_storage().nbytes()
    assert y.grad_fn.name() == "MulBackward0"
    saved_self = y.grad_fn._saved_self
    assert saved_self.untyped_storage().data_ptr() != y.untyped_storage().data_ptr()
    assert torch.equal(saved_self, x.detach() * 2)  # the old value
    out_of_place, _ = _allocated_bytes(lambda: (x * 2) * q)
    assert out_of_place == 2 * in_place  # x * 2, then the product
    y.sum().backward()


def relu_inplace_breaks_after_an_output_saving_op():
    """`relu(inplace=True)` breaks backward on a sigmoid's output (even where it changes no value) and on a tensor saved as an input."""
    torch.manual_seed(0)
    x, q = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
    s = x.sigmoid()
    before = s.detach().clone()
    y = nn.functional.relu(s, inplace=True)
    assert torch.equal(y, before)  # sigmoid's output is positive: ReLU changes nothing
    assert _raises_inplace_error(lambda: y.sum().backward())
    a = x.clone()
    c = a * q  # saves a, for q's gradient
    nn.functional.relu(a, inplace=True)
    assert _raises_inplace_error(lambda: c.sum().backward())
