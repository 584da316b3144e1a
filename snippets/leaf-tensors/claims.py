"""Checks behind leaf-tensors' sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`leaf-tensors/<name>` on a page names one)."""

import os
import re
import warnings

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


def _grad_quietly(tensor):
    """tensor.grad without the warning a non-leaf gives."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tensor.grad


def _holds(loss, tensor):
    """Is there an AccumulateGrad node holding `tensor` in loss's graph?"""
    seen, todo = set(), [loss.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if getattr(node, "variable", None) is tensor:
            return True
        todo += [parent for parent, _ in node.next_functions]
    return False


def _raises_does_not_require_grad(loss):
    try:
        loss.backward()
    except RuntimeError as error:
        return "does not require grad" in str(error)
    return False


def every_tensor_that_does_not_require_grad_is_a_leaf():
    """A created constant, a result computed from tensors that do not require grad, a result computed
    under no_grad, a detach(), the results of argmax, a comparison and an integer cast of a tensor that
    requires grad, and a frozen parameter all have requires_grad False and is_leaf True."""
    x = torch.ones(2, requires_grad=True)
    constant = torch.ones(2)
    with torch.no_grad():
        under_no_grad = x * 2
    h = x * 3
    frozen = nn.Linear(2, 1).requires_grad_(False).weight
    for tensor in (constant, constant * 2, under_no_grad, x.detach(), h.argmax(), h > 0, h.long(), frozen):
        assert not tensor.requires_grad and tensor.is_leaf


def the_warning_ends_by_naming_a_file_of_pytorchs_build_tree():
    """Reading a non-leaf's .grad warns once, and the message ends with "(Triggered internally at
    <path under a build/ directory>/<C++ file>:<line>.)"."""
    h = torch.ones(2, requires_grad=True) * 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        h.grad
    assert len(caught) == 1 and caught[0].category is UserWarning
    message = str(caught[0].message)
    assert re.search(r"\(Triggered internally at \S*/build/\S+\.(h|cpp):\d+\.\)$", message), message[-120:]


def naming_an_intermediate_in_inputs_fills_its_grad():
    """A plain backward() leaves the intermediate h's .grad None; backward(inputs=[h]) fills it with
    d loss / d h, without retain_grad() and with no warning on reading it, and fills only h's."""
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    h = x * 3
    (h * h).sum().backward()
    assert _grad_quietly(h) is None
    h = x * 3
    (h * h).sum().backward(inputs=[h])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = h.grad
    assert grad.tolist() == [12.0, 18.0] and not caught and not h.is_leaf
    assert x.grad.tolist() == [36.0, 54.0]  # from the first, plain backward(): the second added nothing


def the_warning_shows_once_per_line_of_code():
    """Under Python's default warning filter, a script's loop that reads a non-leaf's .grad on two
    lines of code gets None at every step and one UserWarning per line, both on the first step:
    once per line, not once per process and not once per read."""
    x = torch.ones(2, requires_grad=True)
    read, warned_by_step = [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.resetwarnings()
        warnings.simplefilter("default")
        for _ in range(3):
            h = x * 3
            (h * h).sum().backward()
            read.append(h.grad)  # one line that reads .grad
            read.append(h.grad)  # and another
            warned_by_step.append(len(caught))
    assert read == [None] * 6
    assert warned_by_step == [2, 2, 2], warned_by_step
    assert [warning.category for warning in caught] == [UserWarning] * 2, caught
    assert len({warning.lineno for warning in caught}) == 2, [warning.lineno for warning in caught]


def a_hook_runs_once_and_stores_nothing():
    """A hook registered on h2 is called once during backward, with h2's gradient, and h2.grad
    stays None afterwards."""
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    seen = []
    h2 = x * 3
    h2.register_hook(seen.append)
    (h2 * h2).sum().backward()
    assert len(seen) == 1 and seen[0].tolist() == [12.0, 18.0]
    assert _grad_quietly(h2) is None


def a_dtype_change_or_a_device_move_gives_a_non_leaf():
    """Converting a leaf that requires grad to another dtype, or moving it to another device (here
    the meta device), gives a result with a grad_fn that is not a leaf. Data that does not require
    grad stays a leaf when converted or moved, so do the parameters of a module moved with .to(), and
    a tensor converted first and then given requires_grad_() is a leaf."""
    a = torch.randn(3, requires_grad=True, generator=torch.Generator().manual_seed(0))
    for moved in (a.to(torch.float64), a.double(), a.half(), a.to("meta")):
        assert moved.requires_grad and not moved.is_leaf and moved.grad_fn is not None
    assert a.to(torch.float32) is a  # no change at all: .to() returns the leaf itself
    data = torch.randn(3)
    for moved in (data.double(), data.to("meta")):
        assert moved.is_leaf and moved.grad_fn is None
    layer = nn.Linear(3, 1).to(torch.float64).to("meta")
    assert all(p.is_leaf and p.requires_grad and p.dtype == torch.float64 for p in layer.parameters())
    made_right = (torch.randn(3, 1) * 0.1).double().requires_grad_()
    assert made_right.is_leaf and made_right.requires_grad


def a_parametrized_weight_is_not_a_leaf_its_originals_get_the_gradient():
    """After register_parametrization, or nn.utils.parametrizations.weight_norm or spectral_norm
    (which register one too), layer.weight is not a leaf and its .grad is None after backward; the
    gradient is on the leaves under layer.parametrizations.weight: original, or original0 and
    original1 for weight_norm."""

    class Double(nn.Module):
        def forward(self, weight):
            return weight * 2

    from torch.nn.utils import parametrizations, parametrize

    x = torch.randn(4, 3, generator=torch.Generator().manual_seed(0))
    made = (
        (lambda layer: parametrize.register_parametrization(layer, "weight", Double()), ["original"]),
        (parametrizations.weight_norm, ["original0", "original1"]),
        (parametrizations.spectral_norm, ["original"]),
    )
    for make, names in made:
        layer = make(nn.Linear(3, 2))
        assert parametrize.is_parametrized(layer, "weight") and not layer.weight.is_leaf
        layer(x).sum().backward()
        assert _grad_quietly(layer.weight) is None
        originals = dict(layer.parametrizations.weight.named_parameters())
        assert sorted(originals) == names
        assert all(t.is_leaf and t.grad is not None for t in originals.values())


def an_update_guarded_by_a_none_check_freezes_w():
    """With `if w.grad is not None:` before the rebinding update, nothing raises: w keeps the value
    of the first update on every later step while b keeps changing."""
    torch.manual_seed(0)
    x = torch.randn(16, 1)
    y = 2 * x + 1
    w = torch.zeros(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    ws, bs = [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(4):
            ((x * w + b - y) ** 2).mean().backward()
            with torch.no_grad():
                if w.grad is not None:
                    w = w - 0.1 * w.grad
                b -= 0.1 * b.grad
            b.grad = None
            ws.append(w.item())
            bs.append(b.item())
    assert not caught, [str(warning.message)[:80] for warning in caught]
    assert len(set(ws)) == 1 and len(set(bs)) == 4


def a_result_computed_under_no_grad_does_not_require_grad_unless_a_view():
    """Under no_grad, w - 0.1 * g (a new tensor, not a view of w) does not require grad and is a
    leaf; a view of w made under no_grad (w[:1], w.view(2)) still reports requires_grad True, but
    it is off the graph: it has no grad_fn, and a backward pass through it leaves w.grad None. The
    view is a leaf, yet no AccumulateGrad node of that pass holds it, and its own .grad stays None
    too (the same pass through w's view made outside no_grad fills w.grad)."""
    w = torch.ones(2, requires_grad=True)
    g = torch.full((2,), 0.5)
    with torch.no_grad():
        new = w - 0.1 * g
        views = (w[:1], w.view(2))
    assert not new.requires_grad and new.is_leaf and new._base is None
    assert all(view._base is w and view.requires_grad and view.grad_fn is None for view in views)
    for view in views:
        loss = (view * 3).sum()
        loss.backward()
        assert view.is_leaf and not _holds(loss, view) and view.grad is None
    assert w.grad is None
    (w[:1] * 3).sum().backward()
    assert torch.equal(w.grad, torch.tensor([3.0, 0.0]))


def no_gradient_flows_through_a_parameter_back_to_its_source():
    """A Parameter built from the intermediate h = w * 3 gets a gradient; w, the leaf h came from,
    gets none."""
    w = torch.ones(2, requires_grad=True)
    p = nn.Parameter(w * 3)
    (p * p).sum().backward()
    assert p.grad is not None and w.grad is None


def backward_raises_when_the_loss_does_not_require_grad():
    """backward() raises "does not require grad" when no path from the loss leads back to a tensor that
    requires grad: when only the last step ran under no_grad, when the model's output was detached, when
    every path to the parameters goes through argmax or a trip through .item(), and when every parameter
    is frozen and the input does not require grad (with an input that requires grad, the loss requires
    grad and backward() completes). The rule is the path, not the loss's requires_grad: a last step
    under no_grad that takes a view leaves a loss with no grad_fn whose requires_grad is True, and
    backward() raises all the same. A last step that changes the loss in place under no_grad leaves it
    its graph, and backward() completes. With only the first layer under no_grad and a trainable layer
    after it, backward() completes with no warning and the first layer keeps .grad None."""
    torch.manual_seed(0)
    x, y = torch.randn(4, 3), torch.randn(4, 1)
    first, second = nn.Linear(3, 4), nn.Linear(4, 1)
    out = second(first(x))
    with torch.no_grad():
        last_step_under_no_grad = F.mse_loss(out, y)
    detached = F.mse_loss(second(first(x)).detach(), y)
    through_argmax = (second(first(x)).argmax(dim=0).float() - 1.0).pow(2).mean()
    through_item = (torch.tensor(second(first(x)).mean().item()) - 1.0) ** 2
    frozen = nn.Linear(3, 1).requires_grad_(False)
    all_frozen = F.mse_loss(frozen(x), y)
    for loss in (last_step_under_no_grad, detached, through_argmax, through_item, all_frozen):
        assert not loss.requires_grad and _raises_does_not_require_grad(loss)
    # A view taken under no_grad reports requires_grad True (its base requires grad), yet has no path back.
    per_output = F.mse_loss(second(first(x)), y, reduction="none").mean(dim=0)  # shape (1,), has a graph
    with torch.no_grad():
        last_step_a_view = per_output.squeeze()
    assert last_step_a_view.requires_grad and last_step_a_view.grad_fn is None
    assert _raises_does_not_require_grad(last_step_a_view)
    # Frozen parameters and an input that requires grad (a saliency map): the loss requires grad.
    x_requires_grad = x.clone().requires_grad_()
    frozen_but_input_requires_grad = F.mse_loss(frozen(x_requires_grad), y)
    assert frozen_but_input_requires_grad.requires_grad
    frozen_but_input_requires_grad.backward()
    assert x_requires_grad.grad is not None and frozen.weight.grad is None

    loss = F.mse_loss(second(first(x)), y)
    with torch.no_grad():
        loss.mul_(0.5)  # in place: the loss keeps its graph
    assert loss.requires_grad
    loss.backward()

    first.zero_grad(set_to_none=True)
    second.zero_grad(set_to_none=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.no_grad():
            hidden = first(x)
        F.mse_loss(second(hidden), y).backward()  # no error
    assert not caught, [str(warning.message)[:80] for warning in caught]
    assert first.weight.grad is None and second.weight.grad is not None


def an_in_place_change_under_no_grad_to_a_saved_tensor_breaks_backward():
    """tanh saves its output; clamping that output in place under no_grad leaves a loss that requires
    grad, and backward() raises the in-place error (the saved tensor's version changed)."""
    torch.manual_seed(0)
    x, y = torch.randn(4, 3), torch.randn(4, 1)
    first, second = nn.Linear(3, 4), nn.Linear(4, 1)
    hidden = torch.tanh(first(x))
    with torch.no_grad():
        hidden.clamp_(-0.5, 0.5)
    loss = F.mse_loss(second(hidden), y)
    assert loss.requires_grad
    try:
        loss.backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error), str(error)[:120]
    else:
        raise AssertionError("backward() completed")


class _FirstUnderNoGrad(nn.Module):
    def __init__(self):
        super().__init__()
        self.first, self.second = nn.Linear(3, 4), nn.Linear(4, 1)

    def forward(self, x):
        with torch.no_grad():
            hidden = self.first(x)
        return self.second(hidden)


def _ddp_steps(**options):
    """Run two training steps of _FirstUnderNoGrad under DDP(**options) (one gloo rank in this
    process, on the loopback interface); return what each step did."""
    saved = os.environ.get("GLOO_SOCKET_IFNAME")
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        torch.manual_seed(0)
        model = nn.parallel.DistributedDataParallel(_FirstUnderNoGrad(), **options)
        x, y = torch.randn(8, 3), torch.randn(8, 1)
        steps = []
        for _ in range(2):
            try:
                F.mse_loss(model(x), y).backward()
                steps.append(("completes", model.module.first.weight.grad is None))
            except RuntimeError as error:
                steps.append(("raises", str(error)))
        return steps
    finally:
        dist.destroy_process_group()
        if saved is None:
            os.environ.pop("GLOO_SOCKET_IFNAME")
        else:
            os.environ["GLOO_SOCKET_IFNAME"] = saved


def under_ddp_a_layer_behind_no_grad_fails_the_next_iteration():
    """Under DistributedDataParallel, even with a single process (one rank), a model whose first
    layer runs under no_grad completes its first backward() (first.weight.grad None), and the next
    iteration raises "Expected to have finished reduction in the prior iteration"; with
    find_unused_parameters=True, or with static_graph=True, both steps complete."""
    import torch._dynamo  # noqa: F401  DDP() imports it
    first_step, second_step = _ddp_steps()
    assert first_step == ("completes", True), first_step
    assert second_step[0] == "raises", second_step
    assert "Expected to have finished reduction in the prior iteration" in second_step[1], second_step[1][:120]
    assert _ddp_steps(find_unused_parameters=True) == [("completes", True)] * 2
    assert _ddp_steps(static_graph=True) == [("completes", True)] * 2


def retain_grad_keeps_no_saved_tensors():
    """With h.retain_grad() and no retain_graph, a second backward() through (h * h).sum(), which saved
    h, raises "a second time"; through (-h).sum(), which saved nothing, it completes."""
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    h = x * 3
    h.retain_grad()
    loss = (h * h).sum()
    loss.backward()
    try:
        loss.backward()
    except RuntimeError as error:
        assert "a second time" in str(error)
    else:
        raise AssertionError("the second backward() through h * h completed")
    h = x + 3
    h.retain_grad()
    loss = (-h).sum()
    loss.backward()
    loss.backward()
    assert h.grad.tolist() == [-2.0, -2.0]


def unused_or_cut_off_parameters_are_not_reached():
    """A layer the forward never uses, a layer before a detach(), and layers whose output reaches the
    loss only through argmax, a comparison or a cast to an integer type all keep .grad None after
    backward, and no AccumulateGrad node in the loss's graph holds their weight; the layers after
    the cut get a gradient."""
    torch.manual_seed(0)
    x = torch.randn(5, 3)

    unused, used = nn.Linear(3, 4), nn.Linear(3, 1)
    loss = used(x).sum()
    loss.backward()
    assert unused.weight.grad is None and not _holds(loss, unused.weight)
    assert used.weight.grad is not None and _holds(loss, used.weight)

    head, tail = nn.Linear(3, 4), nn.Linear(4, 1)
    loss = tail(head(x).detach()).sum()
    loss.backward()
    assert head.weight.grad is None and not _holds(loss, head.weight)
    assert tail.weight.grad is not None

    def through_argmax(scores):
        return scores.argmax(dim=1)

    def through_a_cast(scores):
        return scores.long().clamp(0, 3)

    for cut in (through_argmax, through_a_cast):
        scorer, embedding = nn.Linear(3, 4), nn.Embedding(4, 2)
        loss = embedding(cut(scorer(x))).sum()
        loss.backward()
        assert scorer.weight.grad is None and not _holds(loss, scorer.weight), cut.__name__
        assert embedding.weight.grad is not None

    gate, tail = nn.Linear(3, 1), nn.Linear(3, 1)
    loss = (tail(x) * (gate(x) > 0)).sum()  # a comparison: the mask carries no gradient
    loss.backward()
    assert gate.weight.grad is None and not _holds(loss, gate.weight)
    assert tail.weight.grad is not None


def a_retained_intermediate_keeps_grad_none_when_the_pass_skips_it():
    """An intermediate result on which retain_grad() was called (retains_grad True) still has .grad
    None after backward when retain_grad() came only after backward, or when the pass never reached it:
    its path to the loss is cut (detach), a custom Function on it returns None, or torch.autograd.grad
    or backward(inputs=...) asks only for tensors whose gradient does not pass through it; no
    AccumulateGrad node holds it. Retained before an uncut backward, or before a torch.autograd.grad or
    backward(inputs=...) asking for a tensor whose gradient passes through it, it gets a .grad."""
    torch.manual_seed(0)
    x = torch.randn(5, 3)
    first, second = nn.Linear(3, 4), nn.Linear(4, 1)

    class Blocks(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, grad):
            return None

    def detached(hidden):
        loss = second(hidden.detach()).sum()
        loss.backward()
        return loss

    def by_autograd_grad(hidden):
        loss = second(hidden).sum()
        torch.autograd.grad(loss, second.weight)
        return loss

    def inputs_leave_it_out(hidden):
        loss = second(hidden).sum()
        loss.backward(inputs=list(second.parameters()))
        return loss

    def a_function_returning_none(hidden):
        loss = second(Blocks.apply(hidden)).sum()
        loss.backward()
        return loss

    def retained_too_late(hidden):
        loss = second(hidden).sum()
        loss.backward()
        hidden.retain_grad()
        return loss

    for skip in (retained_too_late, detached, by_autograd_grad, inputs_leave_it_out, a_function_returning_none):
        hidden = first(x)
        if skip is not retained_too_late:
            hidden.retain_grad()
        loss = skip(hidden)
        assert hidden.retains_grad and not hidden.is_leaf, skip.__name__
        assert hidden.grad is None and not _holds(loss, hidden), skip.__name__

    def through_it(loss):
        loss.backward()

    def grad_through_it(loss):
        torch.autograd.grad(loss, first.weight)

    def inputs_through_it(loss):
        loss.backward(inputs=[first.weight])

    for reach in (through_it, grad_through_it, inputs_through_it):
        hidden = first(x)
        hidden.retain_grad()
        loss = second(hidden).sum()
        reach(loss)
        assert hidden.grad is not None and not _holds(loss, hidden), reach.__name__


def a_round_trip_out_of_torch_cuts_the_path():
    """A value that leaves torch and comes back, through .item(), .tolist(), torch.tensor(t), or
    .numpy() (which raises on a tensor that requires grad, so it needs a detach() or force=True
    first), carries no
    graph: the layer that computed it keeps .grad None and no AccumulateGrad node of the loss's graph
    holds its weight, while the layer after it gets a gradient."""
    torch.manual_seed(0)
    x = torch.randn(5, 3)

    def through_item(t):
        return torch.tensor(t.mean().item())

    def through_tolist(t):
        return torch.tensor(t.tolist())

    def through_torch_tensor(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "To copy construct from a tensor, it is recommended ..."
            return torch.tensor(t)

    def through_numpy(t):
        try:
            t.numpy()
        except RuntimeError as error:
            assert "requires grad" in str(error)
        else:
            raise AssertionError(".numpy() of a tensor that requires grad did not raise")
        return torch.from_numpy(t.detach().numpy())

    def through_numpy_force(t):
        return torch.from_numpy(t.numpy(force=True))

    for trip in (through_item, through_tolist, through_torch_tensor, through_numpy, through_numpy_force):
        scorer, tail = nn.Linear(3, 1), nn.Linear(3, 1)
        loss = (tail(x) * trip(scorer(x))).sum()
        loss.backward()
        assert scorer.weight.grad is None and not _holds(loss, scorer.weight), trip.__name__
        assert tail.weight.grad is not None, trip.__name__


def a_reentrant_checkpoint_with_no_input_that_requires_grad_cuts_the_path():
    """checkpoint(first, x, use_reentrant=True) with an input x that does not require grad warns
    "None of the inputs have requires_grad=True. Gradients will be None", and its output does not
    require grad: first.weight keeps .grad None, while the layer after it gets its gradient. With an
    input that requires grad, first.weight gets one. Either way no AccumulateGrad node of the loss's
    graph holds first.weight: the checkpoint's node leads to its inputs only."""
    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    for needs_grad in (False, True):
        x, first, second = torch.randn(5, 3).requires_grad_(needs_grad), nn.Linear(3, 4), nn.Linear(4, 1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            hidden = checkpoint(first, x, use_reentrant=True)
        loss = second(hidden).sum()
        loss.backward()
        warned = any("None of the inputs have requires_grad=True. Gradients will be None" in str(w.message)
                     for w in caught)
        assert warned != needs_grad and hidden.requires_grad == needs_grad
        assert (first.weight.grad is not None) == needs_grad and not _holds(loss, first.weight)
        assert second.weight.grad is not None


class _ScaleBy(torch.autograd.Function):
    """h * s, whose backward gives s no gradient."""

    @staticmethod
    def forward(ctx, h, s):
        ctx.save_for_backward(s)
        return h * s

    @staticmethod
    def backward(ctx, grad):
        (s,) = ctx.saved_tensors
        return grad * s, None


def a_leaf_on_the_graph_keeps_grad_none_when_the_pass_skips_it():
    """A leaf that requires grad and that an AccumulateGrad node of the loss's graph holds still has
    .grad None after backward(inputs=...) left it out, after torch.autograd.grad (which fills no
    leaf's .grad, whether it returns that leaf's gradient or not: only an intermediate with
    retain_grad() gets one), and when a custom Function's backward returned None for it."""
    torch.manual_seed(0)
    x, y = torch.randn(8, 3), torch.randn(8, 1)

    a, b = nn.Linear(3, 4), nn.Linear(4, 1)
    loss = F.mse_loss(b(a(x)), y)
    loss.backward(inputs=list(b.parameters()))
    assert _holds(loss, a.weight) and a.weight.grad is None and b.weight.grad is not None

    c, data = nn.Linear(3, 1), x.clone().requires_grad_()
    h = c(data)
    h.retain_grad()
    loss = F.mse_loss(h, y)
    grads = torch.autograd.grad(loss, list(c.parameters()))
    assert _holds(loss, c.weight) and _holds(loss, data) and all(g is not None for g in grads)
    assert c.weight.grad is None and c.bias.grad is None and data.grad is None
    assert h.grad is not None  # why the sentence says "leaf": a retained intermediate is filled

    d, s = nn.Linear(3, 1), torch.ones(1, requires_grad=True)
    loss = F.mse_loss(_ScaleBy.apply(d(x), s), y)
    loss.backward()
    assert s.is_leaf and _holds(loss, s) and s.grad is None and d.weight.grad is not None


def a_post_accumulate_grad_hook_can_leave_grad_none():
    """With the optimizer step run during backward (a post-accumulate hook on each parameter calls its
    own optimizer's step(), then zero_grad()), every parameter is held by an AccumulateGrad node of
    the loss's graph and was updated, yet its .grad is None after backward."""
    torch.manual_seed(0)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    model = nn.Linear(3, 1)
    optimizers = {p: torch.optim.SGD([p], lr=0.1) for p in model.parameters()}

    def step(p):
        optimizers[p].step()
        optimizers[p].zero_grad()

    for p in model.parameters():
        p.register_post_accumulate_grad_hook(step)
    before = [p.detach().clone() for p in model.parameters()]
    loss = F.mse_loss(model(x), y)
    loss.backward()
    for p, old in zip(model.parameters(), before):
        assert p.is_leaf and _holds(loss, p) and p.grad is None and not torch.equal(p.detach(), old)


def a_tensor_made_under_inference_mode_refuses_requires_grad_outside_it():
    """Outside inference_mode, requires_grad_() on a tensor created inside it raises "Setting
    requires_grad=True on inference tensor outside InferenceMode is not allowed"; its clone() is a
    normal tensor, and requires_grad_() makes it a leaf that requires grad and gets a .grad."""
    with torch.inference_mode():
        t = torch.zeros(3)
    assert t.is_inference()
    try:
        t.requires_grad_()
    except RuntimeError as error:
        assert "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed" in str(error)
    else:
        raise AssertionError("requires_grad_() on an inference tensor did not raise")
    c = t.clone().requires_grad_()
    assert not c.is_inference() and c.is_leaf and c.requires_grad
    (c * 2).sum().backward()
    assert torch.equal(c.grad, torch.full((3,), 2.0))

def a_new_optimizer_starts_with_empty_state():
    """An Adam or momentum-SGD optimizer built again over the same parameters starts with an empty
    state, while the one it replaces holds, for each parameter, a step count and two running averages
    (Adam) or a momentum buffer (SGD)."""
    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    model(torch.randn(4, 2)).sum().backward()
    for make, keys in ((lambda: torch.optim.Adam(model.parameters(), lr=0.1), {"step", "exp_avg", "exp_avg_sq"}),
                       (lambda: torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9), {"momentum_buffer"})):
        old = make()
        old.step()
        held = [set(old.state[p]) for p in model.parameters()]
        assert held == [keys, keys], held
        new = make()
        assert len(new.state) == 0
