"""Checks behind in-place-operations' sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`in-place-operations/<name>` on a page names one)."""

import itertools
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


def shape_edits_count_and_requires_grad_does_not():
    """Each in-place operation that writes data or shape adds one to `_version` (`a[0] += 1` runs two: an add on
    the view, then an indexed assignment); `unsqueeze_()` and `t_()`, which change only the shape, count and break a
    saved tensor; `requires_grad_()`, which only sets a flag, and `detach_()`, which only cuts a tensor off the
    graph, do not count."""
    a = torch.zeros(3)
    a.requires_grad_()
    a.requires_grad_(False)
    a.detach_()
    assert a._version == 0
    y = torch.randn(3, requires_grad=True) * 2
    y.detach_()
    assert y.grad_fn is None and y._version == 0
    a.add_(1)
    assert a._version == 1
    a.zero_()
    assert a._version == 2
    a += 1
    assert a._version == 3
    a[1] = 5.0
    assert a._version == 4
    a[0] += 1
    assert a._version == 6
    for edit in (lambda t: t.unsqueeze_(0), lambda t: t.t_()):
        x = torch.randn(2, 2, requires_grad=True)
        y = x.sigmoid()  # SigmoidBackward0 saves y
        before = y.detach().clone()
        edit(y)
        assert y._version == 1
        assert _raises_inplace_error(lambda: y.sum().backward())
        assert torch.equal(before.flatten().sort().values, y.detach().flatten().sort().values)  # same values


def writes_below_autograd_are_not_counted():
    """BatchNorm in training mode updates `running_mean` and `running_var` in place without bumping their
    `_version`, so a graph that saved `running_var` runs backward with the new values; a fused SGD step likewise.
    BatchNorm's own node saves both statistics (the module's tensors themselves), and a counted write to one of them,
    a `copy_()` under no_grad, between forward and backward makes that backward raise; its own update does not."""
    torch.manual_seed(0)
    bn = nn.BatchNorm1d(3)
    x = torch.ones(3, requires_grad=True)
    y = (x * bn.running_var).sum()  # MulBackward0 saves running_var for x's gradient
    old_var, old_mean = bn.running_var.clone(), bn.running_mean.clone()
    versions = bn.running_var._version, bn.running_mean._version
    bn(torch.randn(16, 3) * 5)
    assert not torch.equal(bn.running_var, old_var) and not torch.equal(bn.running_mean, old_mean)
    assert (bn.running_var._version, bn.running_mean._version) == versions
    y.backward()
    assert torch.equal(x.grad, bn.running_var) and not torch.equal(x.grad, old_var)
    w = nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    optimizer = torch.optim.SGD([w], lr=0.1, fused=True)
    (w ** 2).sum().backward()
    version, before = w._version, w.detach().clone()
    optimizer.step()
    assert not torch.equal(w, before) and w._version == version
    for name in ("running_mean", "running_var"):
        bn = nn.BatchNorm1d(3)
        out = bn(torch.randn(8, 3, requires_grad=True))
        saved = getattr(out.grad_fn, "_saved_" + name)
        assert saved.untyped_storage().data_ptr() == getattr(bn, name).untyped_storage().data_ptr(), name
        with torch.no_grad():
            getattr(bn, name).copy_(torch.ones(3))
        assert _raises_inplace_error(lambda: out.sum().backward()), name
        out = bn(torch.randn(8, 3, requires_grad=True))
        bn(torch.randn(8, 3))  # BatchNorm's own update of the statistics, not counted
        out.sum().backward()


def embedding_max_norm_edits_its_weight():
    """`F.embedding(idx, W, max_norm=1.0)`, an out-of-place call, renormalises in place the rows of `W` it looks up:
    `W._version` goes up, the other rows stay, and a graph that saved `W` before fails."""
    torch.manual_seed(0)
    W = nn.Parameter(torch.randn(5, 3) * 3)
    idx = torch.tensor([0, 2])
    regulariser = (W ** 2).sum()  # PowBackward0 saves W
    before, version = W.detach().clone(), W._version
    out = nn.functional.embedding(idx, W, max_norm=1.0)
    assert W._version == version + 1
    changed = (W.detach() != before).any(dim=1)
    assert changed.tolist() == [True, False, True, False, False]
    assert torch.allclose(W.detach()[idx].norm(dim=1), torch.ones(2), atol=1e-4)
    assert _raises_inplace_error(lambda: (regulariser + out.sum()).backward())


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


def _error_and_anomaly_warnings(build):
    """Run build() under anomaly detection: it returns (tensor to call backward() on); give back the error's
    message and the warnings' texts."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.set_detect_anomaly(True):
            out = build()
            try:
                out.sum().backward()
            except RuntimeError as error:
                message = str(error)
            else:
                raise AssertionError("backward did not fail")
    return message, [str(w.message) for w in caught]


def anomaly_names_the_failing_node_for_a_saved_input():
    """For an edited saved input, the error names the tensor's producer now: the in-place Add for `a.add_(1)` (for
    an edit through a view, `CopySlices`; for an edit under no_grad, which records nothing, the earlier producer
    `Clone`; for a leaf, an input batch or a parameter updated under no_grad, no node at all), and only anomaly
    detection's warning names the node that failed (`MulBackward0`, `AddmmBackward0`, `PowBackward0`)."""
    torch.manual_seed(0)
    x, q = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)

    def multiplication():
        a = x.clone()
        c = a * q
        a.add_(1)
        return c

    message, caught = _error_and_anomaly_warnings(multiplication)
    assert "output 0 of Add" in message and "Mul" not in message, message
    assert any("Error detected in MulBackward0" in text for text in caught)

    def through_a_view():
        a = x.clone()
        c = a * q
        a[0] += 1
        assert type(a.grad_fn).__name__ == "CopySlices"
        return c

    def under_no_grad():
        a = x.clone()
        c = a * q
        with torch.no_grad():
            a.add_(1)
        assert type(a.grad_fn).__name__ == "CloneBackward0"  # the producer before the edit
        return c

    for build, producer in ((through_a_view, "output 0 of torch::autograd::CopySlices"),
                            (under_no_grad, "output 0 of Clone")):
        message, caught = _error_and_anomaly_warnings(build)
        assert producer in message and "Mul" not in message and "Add" not in message, message
        assert any("Error detected in MulBackward0" in text for text in caught)
    lin = nn.Linear(3, 3)

    def linear_on_a_batch():
        data = torch.randn(2, 3)  # a leaf that requires no grad: the Linear saves it for the weight's gradient
        h = lin(data)
        data.add_(1)
        return h

    w = torch.randn(3, requires_grad=True)

    def parameter_updated_under_no_grad():
        y = w ** 2  # PowBackward0 saves the leaf w
        with torch.no_grad():
            w.sub_(0.1)  # an optimizer-style step
        return y

    for build, node in ((linear_on_a_batch, "Addmm"), (parameter_updated_under_no_grad, "Pow")):
        message, caught = _error_and_anomaly_warnings(build)
        assert "modified by an inplace operation" in message and "output 0 of" not in message, message
        assert node not in message
        assert any(f"Error detected in {node}Backward0" in text for text in caught), node


def multiplication_saves_an_input_only_for_the_other_gradient():
    """A multiplication saves an input only when the other operand requires grad (`a * m` with a constant `m` saves `m`, not `a`), and never its output."""
    torch.manual_seed(0)
    x, q, m = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True), torch.randn(3)
    a = x.clone()
    out = a * q
    node = out.grad_fn
    assert node._saved_self is not None and node._saved_other is not None
    saved = {node._saved_self.untyped_storage().data_ptr(), node._saved_other.untyped_storage().data_ptr()}
    assert saved == {a.untyped_storage().data_ptr(), q.untyped_storage().data_ptr()}
    assert out.untyped_storage().data_ptr() not in saved
    c = a * m
    node = c.grad_fn
    assert node._saved_self is None and node._saved_other is not None
    assert node._saved_other.untyped_storage().data_ptr() == m.untyped_storage().data_ptr()
    assert c.untyped_storage().data_ptr() != m.untyped_storage().data_ptr()
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


def an_edit_breaks_backward_when_it_bumps_the_counter_of_a_tensor_saved_on_the_path():
    """Without saved-tensor hooks, backward raises "modified by an inplace operation" when an edit bumped the
    version counter of a tensor that a node saved and that backward reads back at that node, which a built-in node
    does with all it saved whenever it runs, even for a gradient not asked for: off that path it is not checked, an edit of a tensor no node saved is not checked, and an edit through another view of the same data
    counts, even where it overwrites none of the saved values. A custom Function's saved tensor is read back only
    when its backward takes it from `ctx.saved_tensors`: one that never does runs on the edited tensor without an
    error. Under a saved-tensor hook the same edit raises nothing."""
    torch.manual_seed(0)
    x = torch.randn(4, requires_grad=True)
    y = x.sigmoid()
    z = x * 2
    y.add_(1)
    z.sum().backward()  # SigmoidBackward0 is not on this path
    assert _raises_inplace_error(lambda: y.sum().backward())
    q = torch.randn(2, requires_grad=True)
    a = x.clone()
    c = a[:2] * 3  # saves only the number 3, not a: editing a is fine
    a.add_(1)
    c.sum().backward()
    a = x.clone()
    c = a[:2] * q  # saves the view a[:2], for q's gradient
    before = a[:2].detach().clone()
    assert c.grad_fn._saved_self.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
    a[2:].add_(1)  # another view of the same data: none of the saved values changes
    assert torch.equal(a[:2], before) and a[:2]._version == 1
    assert _raises_inplace_error(lambda: c.sum().backward())
    # a built-in node reads back all it saved: asked for x's gradient only, which needs the saved q alone,
    # MulBackward0 still reads back the edited a, and refuses
    p = torch.randn(4, requires_grad=True)
    for ask in (lambda out: torch.autograd.grad(out, x), lambda out: out.backward(inputs=[x])):
        a = x.clone()
        c = a * p
        a.add_(1)
        assert _raises_inplace_error(lambda: ask(c.sum()))
        a = x.clone()
        c = a * p
        ask(c.sum())  # the same request without the edit runs
    # the rule's condition, no saved-tensor hooks: under one, the same edit on the path is not checked
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x.sigmoid()
    y.add_(1)
    assert y._version == 1 and not _raises_inplace_error(lambda: y.sum().backward())

    # read back, or only saved: the check is made when backward reads the tensor
    class Doubles(torch.autograd.Function):  # saves t, but its backward never reads it
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class Squares(torch.autograd.Function):  # saves t and reads it back
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, grad):
            (t,) = ctx.saved_tensors
            return 2 * t * grad

    for function, raises in ((Doubles, False), (Squares, True)):
        a = x.clone()
        out = function.apply(a)
        a.add_(1)
        assert a._version == 1 and out.grad_fn is not None
        assert _raises_inplace_error(lambda: out.sum().backward()) is raises, function.__name__


def saved_tensor_hooks_skip_the_version_check():
    """Under saved_tensors_hooks, whatever the pack hook returns (`t` itself, `t.detach()`, a view, a copy), and
    under save_on_cpu(), an edited saved tensor raises nothing. When the pack hook keeps the same storage (`t`,
    `t.detach()`, a view, save_on_cpu() on a CPU with its default pin_memory=False), backward computes with the
    edited values: the sigmoid's gradient comes out negative. With a copy it is right."""
    torch.manual_seed(0)
    x = torch.randn(3, requires_grad=True)
    right = (x.sigmoid() * (1 - x.sigmoid())).detach()
    Hooks = torch.autograd.graph.saved_tensors_hooks
    same_storage = {"identity": lambda: Hooks(lambda t: t, lambda t: t),
                    "detach": lambda: Hooks(lambda t: t.detach(), lambda t: t),
                    "view": lambda: Hooks(lambda t: t.view_as(t), lambda t: t),
                    "save_on_cpu": torch.autograd.graph.save_on_cpu}
    copies = {"clone": lambda: Hooks(lambda t: t.clone(), lambda t: t),
              "save_on_cpu(pin_memory=True)": lambda: torch.autograd.graph.save_on_cpu(pin_memory=True)}
    for name, hook in {**same_storage, **copies}.items():
        x.grad = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)  # pinned memory's temporary files, on some releases
            with hook():
                y = x.sigmoid()
            y.add_(1)
            assert y._version == 1
            assert not _raises_inplace_error(lambda: y.sum().backward()), name
        if name in copies:
            assert torch.allclose(x.grad, right), name
        else:
            assert (x.grad < 0).all() and (right > 0).all(), name
    y = x.sigmoid()  # without hooks the same edit raises
    y.add_(1)
    assert _raises_inplace_error(lambda: y.sum().backward())


def checkpoint_still_checks_its_inputs():
    """`torch.utils.checkpoint` with `use_reentrant=False` enters a saved-tensor hooks context for its region, yet
    it saves the region's inputs itself and checks their versions when it reads them back: an in-place edit of an
    input after the forward raises "modified by an inplace operation" at backward with `use_reentrant=True` whatever
    the region saved, and with `use_reentrant=False` when backward recomputes the region, that is when the region
    saved a tensor, even one other than that input (`(t * 2).sigmoid()` saves only its output, `t * torch.tensor(2.)`
    only the 2), and not when its only saved value is a Python number (`t * 2`), which autograd keeps without
    passing it to a pack hook. So the edit of the input of `(t * 2).sigmoid()` or of `t * torch.tensor(2.)`,
    harmless without checkpoint, raises under it; with `use_reentrant=False` the edit of the input of `t * 2`
    raises nothing."""
    from torch.utils.checkpoint import checkpoint

    hooks_class = torch.autograd.graph.saved_tensors_hooks
    original, entered = hooks_class.__enter__, []

    def spy(self):
        entered.append(type(self))
        return original(self)

    torch.manual_seed(0)
    x = torch.randn(3, requires_grad=True)
    packed = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        by_number, by_tensor = x * 2, x * torch.tensor(2.0)
    # both nodes saved the 2 as a zero-dimensional tensor, but only the tensor operand reached the pack hook
    assert by_number.grad_fn._saved_other.dim() == 0 and by_tensor.grad_fn._saved_other.dim() == 0
    assert len(packed) == 1 and packed[0].dim() == 0, packed
    regions = {"saves its input": (lambda t: t ** 2, True),
               "saves a tensor, not its input": (lambda t: (t * 2).sigmoid(), True),  # sigmoid saves its output
               "saves a tensor operand, not its input": (lambda t: t * torch.tensor(2.0), True),
               "saves only a Python number": (lambda t: t * 2, False)}
    for name, (region, raises_without_reentrant) in regions.items():
        a = x.clone()
        y = region(a)
        a.add_(1)
        assert _raises_inplace_error(lambda: y.sum().backward()) is (name == "saves its input"), name
        for reentrant in (False, True):
            a = x.clone()
            entered.clear()
            hooks_class.__enter__ = spy
            try:
                y = checkpoint(region, a, use_reentrant=reentrant)
            finally:
                hooks_class.__enter__ = original
            assert bool(entered) is not reentrant, (reentrant, entered)
            assert all(issubclass(kind, hooks_class) for kind in entered)
            a.add_(1)
            raises = _raises_inplace_error(lambda: y.sum().backward())
            assert raises is (reentrant or raises_without_reentrant), (name, reentrant)


def allow_mutation_on_saved_tensors_keeps_the_gradient_right():
    """When the forward, the edit of a saved tensor and the backward all run inside
    `torch.autograd.graph.allow_mutation_on_saved_tensors()`, backward raises nothing and the gradient is the one of
    the unedited forward; a backward after the context has closed raises."""
    torch.manual_seed(0)
    x = torch.randn(3, requires_grad=True)
    right = (x.sigmoid() * (1 - x.sigmoid())).detach()
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        y = x.sigmoid()  # saves its output
        y.add_(1)
        assert y._version == 1
        y.sum().backward()
    assert torch.allclose(x.grad, right)
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        y = x.sigmoid()
        y.add_(1)
    try:
        y.sum().backward()
    except AssertionError as error:
        assert "outside of the 'allow_mutation_on_saved_tensors' context" in str(error), str(error)
    else:
        raise AssertionError("a backward after the context ran")


def inference_tensors_have_no_version_counter():
    """A tensor created under `torch.inference_mode()` has no version counter: reading its `_version` raises."""
    with torch.inference_mode():
        t = torch.ones(3)
    assert t.is_inference()
    try:
        t._version
    except RuntimeError as error:
        assert "do not track version counter" in str(error), str(error)
    else:
        raise AssertionError("_version was read")
    assert torch.ones(3)._version == 0


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


def numpy_writes_bypass_the_counter():
    """A write through the NumPy array of `y.detach().numpy()` changes `y` and bumps nothing: backward runs with
    the edited values (a negative sigmoid gradient)."""
    x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
    y = x.sigmoid()
    right = (y * (1 - y)).detach()
    array = y.detach().numpy()
    array += 1
    assert torch.allclose(y.detach(), right.new_tensor([0.5, 0.7311, 0.8808]) + 1, atol=1e-4)
    assert y._version == 0
    y.sum().backward()
    assert (x.grad < 0).all() and (right > 0).all()


IMPLEMENTATIONS = ({}, {"foreach": True}, {"fused": True})


def optimizer_step_is_unrecorded_and_counted_unless_fused():
    """`step()` of SGD, Adam and AdamW edits the parameter in place with recording off, and it stays a leaf. The
    default and `foreach=True` steps bump `_version`, so a graph that saved the parameter fails; a `fused=True` step
    bumps nothing, and that graph's backward runs with the new values."""
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

    for make in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
        for options in IMPLEMENTATIONS:
            which = make.__name__, options
            w = nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
            optimizer = make([w], lr=0.1, **options)
            (w ** 2).sum().backward()
            loss = (w ** 2).sum()  # PowBackward0 saves w
            version, before = w._version, w.detach().clone()
            with InPlaceCalls() as calls:
                optimizer.step()
            assert calls.grad_enabled and not any(calls.grad_enabled), which
            assert not torch.equal(w, before), which
            assert w.is_leaf and w.grad_fn is None, which
            if options.get("fused"):
                assert w._version == version, which
                w.grad = None
                loss.backward()  # no error: the forward's w was [1, 2, 3], the gradient uses the new one
                assert torch.equal(w.grad, 2 * w.detach()) and not torch.equal(w.grad, 2 * before), which
            else:
                assert w._version > version, which
                assert _raises_inplace_error(loss.backward), which


def two_losses_each_with_its_own_step():
    """Two losses from one model, each followed by its own `step()`. Both computed first, so that the first one's
    `step()` runs before the second's `backward()`: with the default SGD that backward fails; with `fused=True` it
    runs. Each computed after the previous step: it runs with either."""
    for options in ({}, {"fused": True}):
        for both_first in (True, False):
            torch.manual_seed(0)
            model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1, **options)
            batches = torch.randn(5, 4), torch.randn(5, 4)
            first = model(batches[0]).pow(2).mean()
            if both_first:
                second = model(batches[1]).pow(2).mean()  # its own forward, the same parameters
            first.backward()
            optimizer.step()
            if not both_first:
                second = model(batches[1]).pow(2).mean()
            optimizer.zero_grad()
            # the second Linear saved its weight
            raised = _raises_inplace_error(second.backward)
            assert raised == (both_first and not options), (options, both_first)
            if not raised:
                optimizer.step()


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


def an_edit_before_the_operation_that_saves_its_input_is_not_checked():
    """For the rows that save an input (`a * q`, `a ** 2`, a Linear), the same edit made before the operation
    raises nothing, and value and gradient are then those of the operation applied to the edited values,
    `op(a + 1)`, another value than `op(a)`."""
    torch.manual_seed(0)
    lin = nn.Linear(3, 3)
    q = torch.randn(2, 3, requires_grad=True)

    def grad(build):
        torch.manual_seed(1)
        x = torch.randn(2, 3, requires_grad=True)
        build(x).backward()
        return x.grad

    for op in (lambda a: a * q, lambda a: a ** 2, lin):
        def edit_first(x):
            a = x.clone()
            a.add_(1)
            return op(a).sum()

        assert torch.equal(grad(edit_first), grad(lambda x: op(x + 1).sum()))
        x = torch.randn(2, 3)
        assert torch.equal(edit_first(x), op(x + 1).sum()) and not torch.allclose(edit_first(x), op(x).sum())


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


def relu_inplace_after_a_hooked_linear_raises_in_forward():
    """With a full backward hook or a full backward pre-hook on a Linear, or on the `nn.ReLU(inplace=True)` after
    it, that ReLU raises in the forward: the tensor it edits is then a view made by the hook's Function; without a
    hook, or with one on the enclosing Sequential, the same model runs."""
    hooks = {"hook": lambda module: module.register_full_backward_hook(lambda module, grad_input, grad_output: None),
             "pre-hook": lambda module: module.register_full_backward_pre_hook(lambda module, grad_output: None)}
    for (kind, register), hooked in itertools.product(hooks.items(), (0, 1)):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 3), nn.ReLU(inplace=True), nn.Linear(3, 1))
        model(torch.randn(2, 3, requires_grad=True)).sum().backward()
        register(model)  # on the Sequential: the ReLU's input is no hook's view, the model still runs
        model(torch.randn(2, 3, requires_grad=True)).sum().backward()
        register(model[hooked])
        try:
            model(torch.randn(2, 3, requires_grad=True))
        except RuntimeError as error:
            assert "is a view and is being modified inplace" in str(error) and "BackwardHookFunction" in str(error)
        else:
            raise AssertionError(f"the forward ran with a {kind} on {type(model[hooked]).__name__}")


def some_view_edits_fail_at_the_edit():
    """An in-place edit of one output of `unbind()`, `split()` or `chunk()` of a tensor that requires grad, or an
    edit with grad mode on of a view of such a tensor made under no_grad, raises at the edit itself, "... is being
    modified inplace"; the same edit of a slice runs, and so does the edit of the no_grad view inside no_grad."""
    x = torch.randn(4, 2, requires_grad=True)
    a = x.clone()
    a[:2].add_(1)
    for make in (lambda t: t.unbind(0)[0], lambda t: t.split(2)[0], lambda t: t.chunk(2)[0]):
        try:
            make(x.clone()).add_(1)
        except RuntimeError as error:
            assert "is a view and is being modified inplace" in str(error), str(error)
            assert "returns multiple views" in str(error), str(error)
        else:
            raise AssertionError("the edit ran")
    a = x.clone()
    with torch.no_grad():
        view = a[:2]
    try:
        view.add_(1)
    except RuntimeError as error:
        assert "created in no_grad mode and is being modified inplace" in str(error), str(error)
    else:
        raise AssertionError("the edit ran")
    a = x.clone()
    with torch.no_grad():
        view = a[:2]
        view.add_(1)  # grad mode off at the edit: it runs
    assert view._version == 1 and torch.is_grad_enabled()


def _saved_activation_storages(activation):
    """Linear, activation, Linear on a batch that needs no gradient: the distinct non-parameter storages
    the graph saved, and the activation's backward node."""
    torch.manual_seed(0)
    first, second = nn.Linear(16, 16), nn.Linear(16, 16)
    parameters = {p.untyped_storage().data_ptr() for p in (*first.parameters(), *second.parameters())}
    found = set()

    def pack(tensor):
        if tensor.untyped_storage().data_ptr() not in parameters:
            found.add(tensor.untyped_storage().data_ptr())
        return tensor.detach()

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        h = activation(first(torch.randn(4, 16)))
        node = h.grad_fn
        out = second(h)
    saved = sorted(name.removeprefix("_saved_") for name in dir(node)
                   if name.startswith("_saved_") and isinstance(getattr(node, name), torch.Tensor))
    out.sum().backward()  # the graph is sound: every edit was one autograd allows
    return len(found), node.name(), saved


def relu_and_relu_inplace_save_the_same_tensor():
    """`relu()` and `relu_()` both make `ReluBackward0` save the ReLU's result, the tensor the next Linear
    saves as its input: between two Linear layers each graph holds the batch and that one activation."""
    for activation in (torch.relu, torch.relu_):
        assert _saved_activation_storages(activation) == (2, "ReluBackward0", ["result"]), activation


def silu_hardswish_mish_in_place_save_a_clone_of_their_input():
    """`silu`, `hardswish`, `mish`, `hardsigmoid`, `hardtanh` and `relu6` (a hardtanh) with `inplace=True` need, for backward, the input they overwrite, so autograd
    saves a clone of it: on a Linear's output the in-place form allocates as many bytes as the out-of-place one, and
    between two Linear layers both graphs hold the same three storages (batch, pre-activation or its clone,
    activation)."""
    F = nn.functional
    for activation in (F.silu, F.hardswish, F.mish, F.hardsigmoid, F.hardtanh, F.relu6):
        torch.manual_seed(0)
        h = nn.Linear(256, 256)(torch.randn(4, 256))
        old = h.detach().clone()
        in_place, y = _allocated_bytes(lambda: activation(h, inplace=True))
        assert y.untyped_storage().data_ptr() == h.untyped_storage().data_ptr()  # written in place
        assert activation is not F.relu6 or type(y.grad_fn).__name__ == "HardtanhBackward0"  # not a ReLU
        saved = y.grad_fn._saved_self
        assert saved.untyped_storage().data_ptr() != h.untyped_storage().data_ptr() and torch.equal(saved, old)
        fresh = h.detach().clone().requires_grad_()
        out_of_place, _ = _allocated_bytes(lambda: activation(fresh))
        assert in_place == out_of_place == h.untyped_storage().nbytes(), (activation, in_place, out_of_place)
        assert _saved_activation_storages(activation)[::2] == (3, ["self"]), activation
        assert _saved_activation_storages(lambda t: activation(t, inplace=True))[::2] == (3, ["self"]), activation


def leaky_relu_and_elu_in_place_save_one_tensor_less_between_linears():
    """`leaky_relu()` and `elu()` save their input, `leaky_relu_()` and `elu_()` their result: between two
    Linear layers the out-of-place graph holds the pre-activation and the activation, the in-place one a
    single tensor (besides the batch)."""
    F = nn.functional
    for out_of_place, in_place in ((F.leaky_relu, F.leaky_relu_), (F.elu, F.elu_)):
        count, _, saved = _saved_activation_storages(out_of_place)
        assert count == 3 and saved == ["self"], (out_of_place, count, saved)
        count, _, saved = _saved_activation_storages(in_place)
        assert count == 2 and saved == ["result"], (in_place, count, saved)


def leaky_relu_and_elu_in_place_refuse_a_negative_slope():
    """`leaky_relu_()` with a negative slope and `elu_()` with a negative alpha, on a Linear's output (which no
    node saved), make backward raise; the out-of-place forms, and the in-place ones with slope or alpha 0, run."""
    F = nn.functional
    cases = {F.leaky_relu_: "negative_slope", F.leaky_relu: "negative_slope", F.elu_: "alpha", F.elu: "alpha"}
    for activation, name in cases.items():
        for value in (-0.5, 0.0, 0.5):
            torch.manual_seed(0)
            h = nn.Linear(3, 3)(torch.randn(4, 3))
            y = activation(h, **{name: value})
            try:
                y.sum().backward()
            except RuntimeError as error:
                assert activation.__name__.endswith("_") and value < 0, (activation, value)
                assert "negative slope which is not supported" in str(error), str(error)
            else:
                assert not (activation.__name__.endswith("_") and value < 0), (activation, value)
