"""Checks behind hooks' sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`hooks/<name>` on a page names one)."""

import copy
import datetime
import functools
import gc
import os
import shutil
import tempfile
import warnings
import weakref

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.utils.checkpoint import checkpoint, set_checkpoint_early_stop


def a_hook_that_returns_none_changes_nothing():
    """A tensor hook that returns None leaves every gradient as it would be without the hook."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).pow(2).sum().backward()
    plain = x.grad.clone()
    x.grad = None
    h = x * 3
    h.register_hook(lambda grad: None)
    x.register_hook(lambda grad: None)
    h.pow(2).sum().backward()
    assert torch.equal(x.grad, plain)


def a_hook_that_edits_its_argument_in_place_can_change_other_gradients_or_raise():
    """A tensor hook receives the gradient tensor itself, which autograd may also hand elsewhere: after
    h = a + b, a hook on a that multiplies its argument in place (returning None) multiplies b.grad
    too; after h = b + a, backward() fills b.grad before a's hook runs, and b.grad stays as it was.
    torch.autograd.grad returns b's gradient multiplied after either order. On the expanded gradient
    that .sum() of a tensor with more than one element hands to its input, the same edit raises; with one
    element it does not, and the leaf's .grad silently comes out multiplied."""
    def times_ten(grad):
        grad.mul_(10)  # returns nothing

    for b_first in (False, True):
        a = torch.ones(2, requires_grad=True)
        b = torch.ones(2, requires_grad=True)
        h = b + a if b_first else a + b
        events = []
        a.register_hook(lambda grad: (events.append("a's hook"), times_ten(grad))[0])
        b.register_post_accumulate_grad_hook(lambda p: events.append("b.grad filled"))
        (h * torch.tensor([1.0, 2.0])).sum().backward()
        assert torch.equal(a.grad, torch.tensor([10.0, 20.0]))
        b_expected = torch.tensor([1.0, 2.0]) if b_first else torch.tensor([10.0, 20.0])  # b was never hooked
        assert torch.equal(b.grad, b_expected), (b_first, b.grad)
        if b_first:
            assert events == ["b.grad filled", "a's hook"], events
        a_grad, b_grad = torch.autograd.grad((h * torch.tensor([1.0, 2.0])).sum(), (a, b))
        assert torch.equal(a_grad, torch.tensor([10.0, 20.0])) and torch.equal(b_grad, torch.tensor([10.0, 20.0])), \
            (b_first, b_grad)
    x = torch.ones(2, requires_grad=True)
    x.register_hook(times_ten)
    try:
        x.sum().backward()
    except RuntimeError as error:
        assert "more than one element of the written-to tensor" in str(error)
    else:
        raise AssertionError("an in-place edit of an expanded gradient did not raise")
    x = torch.ones(1, requires_grad=True)
    x.register_hook(times_ten)
    x.sum().backward()
    assert torch.equal(x.grad, torch.tensor([10.0])), x.grad


def register_hook_on_a_tensor_that_does_not_require_grad_raises():
    """Tensor.register_hook on a tensor that does not require grad raises a RuntimeError; on one that
    does, it returns a handle."""
    try:
        torch.ones(2).register_hook(lambda grad: None)
    except RuntimeError:
        pass
    else:
        raise AssertionError("register_hook on a tensor without requires_grad did not raise")
    torch.ones(2, requires_grad=True).register_hook(lambda grad: None).remove()


def a_leaf_hook_sees_only_the_new_gradient_and_its_result_is_added():
    """On a leaf whose .grad already holds a gradient, register_hook receives only this backward's
    gradient, and what it returns is added to .grad."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 5).sum().backward()
    seen = []

    def hook(grad):
        seen.append(grad.clone())
        return grad * 2

    x.register_hook(hook)
    (x * 3).sum().backward()
    assert torch.equal(seen[0], torch.tensor([3.0, 3.0]))
    assert torch.equal(x.grad, torch.tensor([11.0, 11.0]))  # 5 + 2 * 3


def a_hook_on_an_intermediate_dies_with_it():
    """A hook registered on an intermediate result, and what its closure holds, are freed once neither
    the tensor nor a graph through it is left (after backward too); a hook on a parameter or a module
    stays until it is removed."""
    w = nn.Parameter(torch.ones(3))
    captured = torch.ones(1000)
    ref = weakref.ref(captured)
    h = w * 2
    loss = (h * 3).sum()
    h.register_hook(lambda grad, captured=captured: grad * captured[0])
    loss.backward()
    del captured
    gc.collect()
    assert ref() is not None  # the hook on h holds it while h lives
    del h
    gc.collect()
    assert ref() is not None  # and while loss's graph, which goes through h, lives
    del loss
    gc.collect()
    assert ref() is None

    captured = torch.ones(1000)
    ref = weakref.ref(captured)
    handle = w.register_hook(lambda grad, captured=captured: grad * captured[0])
    del captured
    gc.collect()
    assert ref() is not None
    handle.remove()
    gc.collect()
    assert ref() is None

    layer = nn.Linear(3, 1)
    captured = torch.ones(1000)
    ref = weakref.ref(captured)
    handle = layer.register_forward_hook(lambda m, args, out, captured=captured: None)
    del captured
    layer(torch.ones(2, 3)).sum().backward()
    gc.collect()
    assert ref() is not None
    handle.remove()
    gc.collect()
    assert ref() is None


def a_tensor_hook_fires_once_per_backward_of_a_parameter_used_twice():
    """A parameter used twice in one forward calls its hook once per backward pass, with the summed
    gradient; with each use inside its own reentrant checkpoint that uses the parameter without taking it
    as an input, each part runs a backward pass of its own and the hook is called once per part (a
    non-reentrant checkpoint still calls it once); when no input of a reentrant checkpoint requires grad,
    no gradient reaches the parameter: the hook is not called and .grad stays None. A parameter passed
    to each reentrant checkpoint as an input calls its hook once, with the sum of the parts."""
    w = nn.Parameter(torch.tensor([1.0]))
    seen = []
    w.register_hook(lambda grad: seen.append(grad.item()))
    (w * 3 + w * 5).sum().backward()
    assert seen == [8.0]
    for reentrant, expected in ((True, [3.0, 5.0]), (False, [8.0])):
        seen.clear()
        x = torch.ones(1, requires_grad=True)
        y = (checkpoint(lambda t: t * w * 3, x, use_reentrant=reentrant)
             + checkpoint(lambda t: t * w * 5, x, use_reentrant=reentrant))
        y.sum().backward()
        assert sorted(seen) == expected, (reentrant, seen)
    seen.clear()
    w.grad = None
    x = torch.ones(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "None of the inputs have requires_grad=True"
        y = (checkpoint(lambda t: t * w * 3, x, use_reentrant=True)
             + checkpoint(lambda t: t * w * 5, x, use_reentrant=True))
    assert not y.requires_grad and seen == [] and w.grad is None, (y.requires_grad, seen, w.grad)
    for x in (torch.ones(1, requires_grad=True), torch.ones(1)):
        seen.clear()
        y = (checkpoint(lambda t, v: t * v * 3, x, w, use_reentrant=True)
             + checkpoint(lambda t, v: t * v * 5, x, w, use_reentrant=True))
        y.sum().backward()
        assert seen == [8.0], (x.requires_grad, seen)


def a_hook_on_a_node_lives_as_long_as_the_node():
    """A hook on a parameter's AccumulateGrad node runs in later forwards' backward passes as long as
    anything holds that node: a graph, or a Python variable; once neither does, a new node is made
    and the hook is gone."""
    p = nn.Parameter(torch.ones(2))
    loss = (p * 2).sum()
    accumulate = loss.grad_fn.next_functions[0][0].next_functions[0][0]
    runs = []
    accumulate.register_prehook(lambda grad_outputs: runs.append(1))
    del loss
    gc.collect()
    (p * 3).sum().backward()
    assert len(runs) == 1  # no graph holds the node, the variable does
    del accumulate
    gc.collect()
    (p * 3).sum().backward()
    assert len(runs) == 1


def a_node_prehook_that_returns_a_tuple_replaces_grad_outputs():
    """A hook added with node.register_prehook is called with the gradients with respect to the node's
    outputs, before the node runs; a tuple it returns replaces them, for every input of the node."""
    x = torch.ones(2, requires_grad=True)
    w = torch.full((2,), 3.0, requires_grad=True)
    h = x * w
    seen = []
    h.grad_fn.register_prehook(lambda grad_outputs: seen.append(grad_outputs) or (grad_outputs[0] * 10,))
    h.sum().backward()
    assert len(seen) == 1 and torch.equal(seen[0][0], torch.ones(2)), seen
    assert torch.equal(x.grad, torch.full((2,), 30.0)) and torch.equal(w.grad, torch.full((2,), 10.0)), (x.grad, w.grad)


def post_accumulate_hooks_are_for_leaves_and_receive_the_tensor():
    """register_post_accumulate_grad_hook calls its hook with the tensor itself (its .grad already
    updated), and refuses a tensor that is not a leaf with a RuntimeError."""
    p = nn.Parameter(torch.ones(2))
    (p * 2).sum().backward()
    seen = []
    p.register_post_accumulate_grad_hook(lambda t: seen.append((t, t.grad.clone())))
    (p * 3).sum().backward()
    assert seen[0][0] is p and torch.equal(seen[0][1], torch.tensor([5.0, 5.0]))
    try:
        (p * 2).register_post_accumulate_grad_hook(lambda t: None)
    except RuntimeError:
        pass
    else:
        raise AssertionError("a non-leaf accepted a post-accumulate hook")


def full_backward_hook_fires_before_the_layers_gradients_when_no_input_requires_grad():
    """On a layer whose positional input does not require grad, a full backward hook fires once, with
    grad_input (None,), as soon as grad_output is known: before the layer's own weight gradient is
    computed (it is None inside the hook on a fresh layer, and set when the input requires grad). An
    input passed by keyword counts as none even when it requires grad: grad_input is () and the hook
    fires just as early. The only warning torch may raise about it (releases differ) says that the hook
    fires on the module's outputs."""
    for needs_grad, by_keyword in ((False, False), (True, False), (True, True)):
        layer = nn.Linear(3, 2)
        seen = []
        layer.register_full_backward_hook(
            lambda m, grad_in, grad_out: seen.append((grad_in, m.weight.grad is None, grad_out[0].shape)))
        x = torch.randn(4, 3, requires_grad=needs_grad)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            (layer(input=x) if by_keyword else layer(x)).sum().backward()
        early = by_keyword or not needs_grad
        assert len(seen) == 1 and seen[0][1:] == (early, torch.Size([4, 2])), (needs_grad, by_keyword, seen)
        grad_in = seen[0][0]
        if by_keyword:
            assert grad_in == (), grad_in
        else:
            assert len(grad_in) == 1 and (grad_in[0] is None) == (not needs_grad), grad_in
        assert layer.weight.grad is not None
        assert all("with respect to module outputs" in str(w.message) for w in caught), [str(w.message) for w in caught]
        assert not (not early and caught)


def a_full_backward_hook_must_return_none_when_no_input_requires_grad():
    """On a layer whose positional input does not require grad, a full backward hook that returns
    anything but None or a tuple of None makes backward raise a RuntimeError (and the weight gets no
    gradient); one that returns None, (None,) or () does not. A full backward pre-hook's tuple still
    replaces grad_output there, so the weight and bias gradients come out tripled."""
    torch.manual_seed(0)
    x = torch.randn(5, 4)
    for returned, raises in ((lambda gi: (torch.zeros(5, 4),), True), (lambda gi: (torch.ones(5, 4),), True),
                             (lambda gi: None, False), (lambda gi: (None,), False), (lambda gi: (), False)):
        layer = nn.Linear(4, 3)
        layer.register_full_backward_hook(lambda m, grad_in, grad_out, returned=returned: returned(grad_in))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                layer(x).sum().backward()
            except RuntimeError as error:
                assert raises and "return None" in str(error), error
                assert layer.weight.grad is None
            else:
                assert not raises and layer.weight.grad is not None
    layer, plain = nn.Linear(4, 3), nn.Linear(4, 3)
    plain.load_state_dict(layer.state_dict())
    layer.register_full_backward_pre_hook(lambda m, grad_out: (grad_out[0] * 3,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        layer(x).sum().backward()
    plain(x).sum().backward()
    assert torch.allclose(layer.weight.grad, 3 * plain.weight.grad) and torch.allclose(layer.bias.grad, 3 * plain.bias.grad)
    assert not torch.allclose(layer.weight.grad, plain.weight.grad)


def deepcopy_copies_module_hooks_but_not_parameter_hooks():
    """copy.deepcopy of a module (an EMA or teacher copy) copies its hooks of all four kinds and runs them
    on the copy. A lambda (a plain function) is shared: it appends to the caller's list, not to a copy of
    it. A bound method and a functools.partial are deep-copied with their object and their arguments: the
    copy's hooks write into a copy of the monitor and of the list, and the caller's stay empty. The hooks
    on its parameters, register_hook and register_post_accumulate_grad_hook, are not copied: a backward
    through the copy runs neither, while the original still runs both."""

    class Monitor:
        def __init__(self):
            self.seen = []

        def forward_hook(self, module, args, output):
            self.seen.append("forward")

    def record(module, args, output, store):
        store.append("forward")

    layer, calls, monitor, store = nn.Linear(2, 1), [], Monitor(), []
    layer.register_forward_pre_hook(lambda *args: calls.append("forward pre"))
    layer.register_forward_hook(lambda *args: calls.append("forward"))
    layer.register_full_backward_pre_hook(lambda *args: calls.append("backward pre"))
    layer.register_full_backward_hook(lambda *args: calls.append("backward"))
    layer.register_forward_hook(monitor.forward_hook)
    layer.register_forward_hook(functools.partial(record, store=store))
    layer.weight.register_hook(lambda grad: calls.append("register_hook"))
    layer.weight.register_post_accumulate_grad_hook(lambda p: calls.append("post-accumulate"))
    twin = copy.deepcopy(layer)
    x = torch.ones(3, 2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        twin(x).sum().backward()
        assert sorted(calls) == ["backward", "backward pre", "forward", "forward pre"], calls
        assert twin.weight.grad is not None and layer.weight.grad is None
        # The bound method and the partial ran on the copy, into copies of the monitor and of the list.
        assert monitor.seen == [] and store == [], (monitor.seen, store)
        copied = list(twin._forward_hooks.values())
        method = next(hook for hook in copied if getattr(hook, "__func__", None) is Monitor.forward_hook)
        partial = next(hook for hook in copied if isinstance(hook, functools.partial))
        assert method.__self__ is not monitor and method.__self__.seen == ["forward"], method.__self__.seen
        assert partial.keywords["store"] is not store and partial.keywords["store"] == ["forward"], partial.keywords
        calls.clear()
        layer(x).sum().backward()
    assert sorted(calls) == ["backward", "backward pre", "forward", "forward pre", "post-accumulate",
                             "register_hook"], calls
    assert monitor.seen == ["forward"] and store == ["forward"], (monitor.seen, store)


def a_forward_pre_hook_that_returns_a_tensor_replaces_the_input():
    """A forward pre-hook that returns a single tensor (not a tuple) replaces the module's only input,
    one that returns a tuple replaces all positional inputs, one that returns None leaves them."""
    torch.manual_seed(0)
    layer = nn.Linear(3, 2)
    x = torch.randn(4, 3)
    handle = layer.register_forward_pre_hook(lambda m, args: None)
    assert torch.equal(layer(x), x @ layer.weight.T + layer.bias)
    handle.remove()
    handle = layer.register_forward_pre_hook(lambda m, args: args[0] * 2)
    assert torch.equal(layer(x), layer.forward(x * 2))
    handle.remove()
    bilinear = nn.Bilinear(3, 3, 2)
    handle = bilinear.register_forward_pre_hook(lambda m, args: (args[1], args[0] * 3))
    y = torch.randn(4, 3)
    assert torch.equal(bilinear(x, y), bilinear.forward(y, x * 3))
    handle.remove()


def an_optimizer_in_backward_steps_at_every_backward():
    """With the optimizer stepped in a post-accumulate hook, every backward() is a step: two
    micro-batches give two updates, not one, and .grad never holds their sum. A parameter used inside two
    reentrant checkpoints, not passed to them as an input, is stepped twice in one backward, the first
    time on one part's gradient; passed to each as an input, it is stepped once, on the sum."""
    p = nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([p], lr=1.0)
    seen = []

    def step(t):
        seen.append(t.grad.item())
        optimizer.step()
        optimizer.zero_grad()

    p.register_post_accumulate_grad_hook(step)
    for _ in range(2):
        (p * 1.0).sum().backward()
    assert seen == [1.0, 1.0] and p.item() == -2.0 and p.grad is None
    w = nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([w], lr=1.0)
    seen.clear()
    w.register_post_accumulate_grad_hook(step)
    x = torch.ones(1, requires_grad=True)
    y = (checkpoint(lambda t: t * (w + 1) * 3, x, use_reentrant=True)
         + checkpoint(lambda t: t * (w + 1) * 5, x, use_reentrant=True))
    y.sum().backward()
    assert sorted(seen) == [3.0, 5.0] and w.item() == -8.0 and w.grad is None, (seen, w.item())
    w = nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.SGD([w], lr=1.0)
    seen.clear()
    w.register_post_accumulate_grad_hook(step)
    y = (checkpoint(lambda t, v: t * (v + 1) * 3, x, w, use_reentrant=True)
         + checkpoint(lambda t, v: t * (v + 1) * 5, x, w, use_reentrant=True))
    y.sum().backward()
    assert seen == [8.0] and w.item() == -8.0 and w.grad is None, (seen, w.item())


def hooks_on_one_tensor_run_in_the_order_they_were_registered():
    """Several hooks on one tensor, a leaf or an intermediate, run in registration order, each
    receiving what the previous returned."""
    x = torch.tensor([1.0], requires_grad=True)
    order = []
    x.register_hook(lambda grad: order.append(("a", grad.item())) or grad * 2)
    x.register_hook(lambda grad: order.append(("b", grad.item())) or grad + 1)
    x.sum().backward()
    assert order == [("a", 1.0), ("b", 2.0)] and x.grad.item() == 3.0

    x = torch.tensor([1.0], requires_grad=True)
    order = []
    h = x * 1
    h.register_hook(lambda grad: order.append(("a", grad.item())) or grad * 2)
    h.register_hook(lambda grad: order.append(("b", grad.item())) or grad + 1)
    h.sum().backward()
    assert order == [("a", 1.0), ("b", 2.0)] and x.grad.item() == 3.0


def a_hook_on_an_intermediate_sees_what_retain_grad_keeps():
    """A hook on an intermediate result that returns None receives the gradient that retain_grad() keeps
    in its .grad; when a hook returns a tensor, .grad keeps that returned tensor instead, whether
    retain_grad() was called before or after the hook was registered."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    seen = []
    h.register_hook(lambda grad: seen.append(grad.clone()))
    h.retain_grad()
    h.pow(2).sum().backward()
    assert len(seen) == 1 and torch.equal(seen[0], h.grad) and torch.equal(h.grad, 2 * h.detach())
    for retain_first in (True, False):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        h = x * 3
        if retain_first:
            h.retain_grad()
        h.register_hook(lambda grad: grad * 10)
        if not retain_first:
            h.retain_grad()
        h.pow(2).sum().backward()
        assert torch.equal(h.grad, 10 * 2 * h.detach()), (retain_first, h.grad)


def a_post_accumulate_hook_must_return_none():
    """A post-accumulate hook cannot replace anything: one that returns a value makes backward raise
    a RuntimeError."""
    p = nn.Parameter(torch.ones(2))
    p.register_post_accumulate_grad_hook(lambda t: t.grad * 2)
    try:
        (p * 2).sum().backward()
    except RuntimeError as error:
        assert "return None" in str(error)
    else:
        raise AssertionError("a post-accumulate hook returned a value without an error")


def a_forward_pre_hook_gets_the_positional_inputs_as_a_tuple():
    """A forward pre-hook receives the positional inputs as a tuple; an input passed by keyword is
    not in it. Registered with with_kwargs=True, it gets the keyword inputs too, as a dict."""
    layer = nn.Linear(3, 2)
    seen = []
    handle = layer.register_forward_pre_hook(lambda m, args: seen.append(args))
    x = torch.ones(1, 3)
    layer(x)
    layer(input=x)
    assert type(seen[0]) is tuple and len(seen[0]) == 1 and seen[0][0] is x
    assert seen[1] == ()
    handle.remove()
    layer.register_forward_pre_hook(lambda m, args, kwargs: seen.append((args, kwargs)), with_kwargs=True)
    layer(input=x)
    assert seen[2][0] == () and list(seen[2][1]) == ["input"] and seen[2][1]["input"] is x


def a_multi_grad_hook_runs_once_per_backward_that_reaches_its_tensors():
    """register_multi_grad_hook in its default mode ("all") calls the hook once in a backward() that reaches
    any of its tensors, after the gradients of all of them are computed, with None for a tensor it does not
    reach, and not at all in a backward that reaches none of them; under torch.autograd.grad with one of
    those leaves among its inputs, the call raises a RuntimeError (with none among them, even through a
    graph that runs through both, the hook is not called). With mode="any" it calls it once per backward that reaches
    any of them, with the first gradient to arrive, a single tensor (three backward passes, one of which
    reaches neither: two calls)."""
    from torch.autograd.graph import register_multi_grad_hook
    x, w, other = (torch.ones(2, requires_grad=True) for _ in range(3))
    calls, events = [], []
    arrived = [t.register_hook(lambda grad, name=name: events.append(name)) for name, t in (("x", x), ("w", w))]
    handle = register_multi_grad_hook(
        (x, w), lambda grads: (events.append("multi"), calls.append([g is not None for g in grads])))
    (x * w).sum().backward()
    assert sorted(events[:2]) == ["w", "x"] and events[2:] == ["multi"], events  # after both gradients
    for hook in arrived:
        hook.remove()
    other.sum().backward()
    (x * 2).sum().backward()
    assert calls == [[True, True], [True, False]]
    try:
        torch.autograd.grad((x * w).sum(), (x, w))
    except RuntimeError:
        pass
    else:
        raise AssertionError("autograd.grad with a mode='all' multi-grad hook on leaves did not raise")
    for inputs in ((x,), (w,)):
        try:
            torch.autograd.grad((x * w * other).sum(), inputs)
        except RuntimeError:
            pass
        else:
            raise AssertionError(f"autograd.grad with a hooked leaf among {len(inputs)} inputs did not raise")
    (grad_other,) = torch.autograd.grad((x * w * other).sum(), other)
    assert torch.equal(grad_other, x * w) and calls == [[True, True], [True, False]], calls
    handle.remove()
    calls.clear()
    x, w = torch.full((2,), 2.0, requires_grad=True), torch.full((2,), 5.0, requires_grad=True)
    arriving = []  # each gradient as it arrives: x's is 5, w's is 2
    arrived = [t.register_hook(lambda grad: arriving.append(grad.clone())) for t in (x, w)]
    handle = register_multi_grad_hook((x, w), calls.append, mode="any")
    (x * w).sum().backward()
    assert len(calls) == 1 and len(arriving) == 2 and not torch.equal(arriving[0], arriving[1])
    assert torch.equal(calls[0], arriving[0]), (calls, arriving)
    other.sum().backward()
    (x * w).sum().backward()
    handle.remove()
    assert len(calls) == 2 and torch.equal(calls[1], arriving[2]), (calls, arriving)


def zeroing_grad_input_leaves_another_paths_gradient():
    """A full backward hook that zeroes grad_input zeroes what flows back through the module's input only:
    a layer before it whose output also reaches the loss by another path (a residual connection) gets that
    path's gradient, exactly as if the hooked layer were not there; in a plain sequence it gets zeros."""
    torch.manual_seed(0)
    first, hooked = nn.Linear(3, 3), nn.Linear(3, 3)
    x = torch.randn(4, 3)
    handle = hooked.register_full_backward_hook(lambda module, grad_input, grad_output: (grad_input[0] * 0,))
    z = first(x)
    (hooked(z) + z).sum().backward()
    residual = first.weight.grad.clone()
    first.zero_grad()
    hooked(first(x)).sum().backward()
    handle.remove()
    assert torch.equal(first.weight.grad, torch.zeros_like(first.weight))
    first.zero_grad()
    first(x).sum().backward()  # the residual path alone
    assert residual.abs().sum() > 0 and torch.allclose(residual, first.weight.grad)


def clipping_each_gradient_in_a_hook_is_not_clip_grad_norm():
    """Clipping each parameter's gradient in its own hook (to a norm of at most 1) can give other
    gradients than clip_grad_norm_(parameters, 1.0), which scales all of them by one common factor."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    twin = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    twin.load_state_dict(model.state_dict())
    x = torch.randn(16, 4) * 10
    model(x).pow(2).mean().backward()
    unclipped = [p.grad.clone() for p in model.parameters()]
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    factors = [(p.grad / g)[g != 0] for p, g in zip(model.parameters(), unclipped)]
    common = factors[0][0]
    assert all(torch.allclose(f, common.expand_as(f)) for f in factors) and common < 1  # one factor for all
    for p in twin.parameters():
        p.register_hook(lambda grad: grad * min(1.0, 1.0 / (grad.norm().item() + 1e-6)))
    twin(x).pow(2).mean().backward()
    assert not all(torch.allclose(a.grad, b.grad) for a, b in zip(model.parameters(), twin.parameters()))
    total = torch.cat([p.grad.flatten() for p in twin.parameters()]).norm().item()
    assert total > 1.0  # each one at most 1, together more than 1


def the_deprecated_backward_hook_sees_the_inputs_of_the_last_operation():
    """The deprecated register_backward_hook hands over in grad_input the gradients of the inputs of the
    module's last autograd operation. An nn.Linear with a bias on a 2-D input ends in addmm: the bias, the
    layer's input and the transposed weight, equal to bias.grad and weight.grad.T. On a contiguous 3-D input
    it ends in a reshape: one tensor, the output's gradient flattened to 2-D. Without a bias, or on a
    non-contiguous input, the last operation and grad_input are others (mm: the input and the transposed
    weight; an add of the bias: the output's gradient and the bias's). The FutureWarning comes in forward,
    none in backward."""
    torch.manual_seed(0)
    layer = nn.Linear(3, 2)
    seen = []
    layer.register_backward_hook(lambda m, grad_in, grad_out: seen.append([g.clone() for g in grad_in]))
    for shape in ((5, 3), (4, 5, 3)):
        seen.clear()
        layer.zero_grad()
        with warnings.catch_warnings(record=True) as in_forward:
            warnings.simplefilter("always")
            out = layer(torch.randn(*shape, requires_grad=True))
        upstream = torch.randn(out.shape)
        with warnings.catch_warnings(record=True) as in_backward:
            warnings.simplefilter("always")
            out.backward(upstream)
        assert any(w.category is FutureWarning and "deprecated" in str(w.message) for w in in_forward)
        assert not in_backward, [str(w.message) for w in in_backward]
        (grad_input,) = seen
        if len(shape) == 2:
            bias, inputs, weight_t = grad_input
            assert bias.shape == (2,) and inputs.shape == (5, 3) and weight_t.shape == (3, 2)
            assert torch.equal(bias, layer.bias.grad) and torch.equal(weight_t, layer.weight.grad.T)
        else:
            (flat,) = grad_input
            assert torch.equal(flat, upstream.reshape(-1, 2))
    shapes = []
    for layer, x in ((nn.Linear(3, 2, bias=False), torch.randn(5, 3)),
                     (nn.Linear(3, 2), torch.randn(5, 4, 3).transpose(0, 1))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            layer.register_backward_hook(lambda m, grad_in, grad_out: shapes.append([tuple(g.shape) for g in grad_in]))
            layer(x.requires_grad_()).sum().backward()
    assert shapes == [[(5, 3), (3, 2)], [(4, 5, 2), (2,)]], shapes


def a_forward_hook_that_returns_a_value_replaces_the_output():
    """register_forward_hook calls its hook with (module, args, output) after forward; a returned value
    replaces the output, None leaves it."""
    torch.manual_seed(0)
    layer = nn.Linear(3, 2)
    x = torch.randn(4, 3)
    plain = layer(x)
    handle = layer.register_forward_hook(lambda m, args, out: None)
    assert torch.equal(layer(x), plain)
    handle.remove()
    handle = layer.register_forward_hook(lambda m, args, out: out * 0 + args[0].sum())
    assert torch.equal(layer(x), plain * 0 + x.sum())
    handle.remove()


def an_activation_checkpoint_runs_forward_hooks_again_in_backward():
    """Under checkpoint(), backward runs the checkpointed forward again, module hooks included: with
    use_reentrant=True every forward pre-hook and forward hook runs a second time, in the same order. The
    non-reentrant checkpoint stops as soon as it has recomputed the last tensor backward needs, so the
    hooks after that point are not called again: in Sequential(Linear, Tanh, Linear, Identity) neither the
    last Linear's forward hook nor the Identity's pre-hook. Under set_checkpoint_early_stop(False) it
    recomputes everything, and every hook runs again."""
    for tail, reentrant, early_stop in ((None, True, True), (None, False, True), (nn.Identity(), False, True),
                                        (nn.Identity(), False, False)):
        model = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 3), *([tail] if tail else []))
        calls = []
        for name, module in model.named_modules():
            module.register_forward_pre_hook(lambda m, args, name=name: calls.append(("pre", name)))
            module.register_forward_hook(lambda m, args, out, name=name: calls.append(("fwd", name)))
        x = torch.randn(2, 3, requires_grad=True)
        with warnings.catch_warnings(), set_checkpoint_early_stop(early_stop):
            warnings.simplefilter("ignore")
            out = checkpoint(model, x, use_reentrant=reentrant)
        first = list(calls)
        assert len(first) == 2 * len(list(model.modules())), first  # a pre-hook and a forward hook each
        out.sum().backward()
        again = calls[len(first):]
        if reentrant or not early_stop:
            assert again == first, (tail, reentrant, again)
        else:
            assert again == first[:len(again)] and ("fwd", "2") not in again, (tail, again)
            if tail is not None:
                assert ("pre", "3") not in again, again


def a_full_backward_pre_hook_that_returns_a_tuple_replaces_grad_output():
    """register_full_backward_pre_hook calls its hook with (module, grad_output) before the module's
    gradients are computed (on a fresh layer, its weight.grad is still None inside the hook, and set
    after backward); a returned tuple replaces grad_output, for the module's own parameters and for
    every layer before it."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    model(torch.ones(4, 3)).sum().backward()
    plain = [p.grad.clone() for p in model.parameters()]
    model.zero_grad(set_to_none=True)
    seen = []

    def triple(module, grad_out):
        seen.append((module.weight.grad is None, model[0].weight.grad is None))
        return (grad_out[0] * 3,)

    model[1].register_full_backward_pre_hook(triple)
    model(torch.ones(4, 3)).sum().backward()
    assert seen == [(True, True)], seen
    assert all(torch.allclose(p.grad, 3 * g) for p, g in zip(model.parameters(), plain))


def an_in_place_op_on_a_hooked_modules_output_raises_in_forward():
    """With a full backward hook or a full backward pre-hook on a module, an in-place op on its output
    (nn.ReLU(inplace=True)) raises a RuntimeError during the forward; the module's output then comes
    from a node named BackwardHookFunction..., and is a view. Under torch.no_grad() the same forward
    runs. A forward hook or a hook on a parameter does not raise."""
    x = torch.randn(2, 4)
    for register in ("register_full_backward_hook", "register_full_backward_pre_hook"):
        model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(inplace=True), nn.Linear(3, 1))
        getattr(model[0], register)(lambda *args: None)
        out = model[0](x)
        assert type(out.grad_fn).__name__.startswith("BackwardHookFunction") and out._is_view()
        try:
            model(x)
        except RuntimeError as error:
            assert "is a view and is being modified inplace" in str(error)
        else:
            raise AssertionError(f"{register}: no error")
        with torch.no_grad():  # autograd records nothing: no hook node, no error
            model(x)
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(inplace=True), nn.Linear(3, 1))
    model[0].register_forward_hook(lambda m, args, out: None)
    model[0].weight.register_hook(lambda grad: None)
    model(x).sum().backward()


def autograd_grad_runs_tensor_hooks_but_not_post_accumulate_hooks():
    """torch.autograd.grad runs the register_hook hook of a leaf among its inputs and returns what it
    returned; it runs no hook of a leaf that is not among its inputs, and never a post-accumulate hook;
    .grad stays None."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = torch.tensor([3.0, 4.0], requires_grad=True)
    calls = []
    for name, t in (("x", x), ("w", w)):
        t.register_hook(lambda grad, name=name: calls.append(f"{name} tensor") or grad * 10)
        t.register_post_accumulate_grad_hook(lambda t, name=name: calls.append(f"{name} post-accumulate"))
    (grad,) = torch.autograd.grad((x * 3 * w).sum(), x)
    assert calls == ["x tensor"] and torch.equal(grad, 10 * 3 * w.detach())
    assert x.grad is None and w.grad is None


def under_a_grad_scaler_gradient_hooks_see_the_scaled_gradient():
    """With a GradScaler, both a register_hook hook and a post-accumulate hook on a weight see the
    gradient multiplied by the scale (65536 by default), before unscale_, and an optimizer stepped in the
    post-accumulate hook steps with it."""
    torch.manual_seed(0)
    layer = nn.Linear(3, 1)
    x = torch.randn(4, 3)
    (plain,) = torch.autograd.grad(layer(x).pow(2).mean(), layer.weight)
    arriving, accumulated = [], []
    layer.weight.register_hook(lambda grad: arriving.append(grad.clone()))
    layer.weight.register_post_accumulate_grad_hook(lambda p: accumulated.append(p.grad.clone()))
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(layer(x).pow(2).mean()).backward()
    assert scaler.get_scale() == 65536.0
    assert torch.equal(arriving[0], plain * 65536) and torch.equal(accumulated[0], plain * 65536)
    # An optimizer stepped in a post-accumulate hook (the optimizer inside backward) steps with that gradient.
    before = layer.weight.detach().clone()
    optimizer = torch.optim.SGD([layer.weight], lr=2.0**-16)
    layer.weight.grad = None
    layer.weight.register_post_accumulate_grad_hook(lambda p: optimizer.step())
    scaler.scale(layer(x).pow(2).mean()).backward()
    assert torch.allclose(before - layer.weight.detach(), plain, rtol=1e-3, atol=0), (before - layer.weight, plain)


def a_clamping_hook_clamps_each_backward_not_the_accumulated_gradient():
    """A hook that clamps a weight's gradient to [-c, c] clamps each backward's gradient on its own: after
    two micro-batches .grad holds entries beyond c, and differs from clamping the accumulated gradient
    (clip_grad_value_ after the last backward)."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    twin = nn.Linear(4, 1)
    twin.load_state_dict(model.state_dict())
    c = 0.5
    model.weight.register_hook(lambda grad: grad.clamp(-c, c))
    batches = [torch.randn(8, 4) * 3 for _ in range(2)]
    for x in batches:
        model(x).pow(2).mean().backward()
        twin(x).pow(2).mean().backward()
    nn.utils.clip_grad_value_(twin.parameters(), c)
    assert model.weight.grad.abs().max() > c
    assert twin.weight.grad.abs().max() <= c
    assert not torch.allclose(model.weight.grad, twin.weight.grad)


def clipping_in_hooks_equals_clip_grad_norm_when_the_total_norm_is_small():
    """When the gradients' total norm is below max_norm (1) by more than the 1e-6 clip_grad_norm_ adds to it,
    hooks that cap each gradient's norm at max_norm and clip_grad_norm_ both leave every gradient as it was;
    at a total norm of exactly 1, clip_grad_norm_ already scales the gradients."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    twin = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    twin.load_state_dict(model.state_dict())
    x = torch.randn(16, 4) * 0.01
    model(x).mean().mul(0.01).backward()
    plain = [p.grad.clone() for p in model.parameters()]
    total = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    assert total < 1.0 - 1e-6
    for p in twin.parameters():
        p.register_hook(lambda grad: grad * min(1.0, 1.0 / (grad.norm().item() + 1e-6)))
    twin(x).mean().mul(0.01).backward()
    assert all(torch.equal(a.grad, g) and torch.equal(b.grad, g)
               for a, b, g in zip(model.parameters(), twin.parameters(), plain))
    p = nn.Parameter(torch.zeros(2))
    p.grad = torch.tensor([0.6, 0.8])  # total norm 1
    nn.utils.clip_grad_norm_([p], 1.0)
    assert not torch.equal(p.grad, torch.tensor([0.6, 0.8])), p.grad


# DDP models of the workers, never freed: freeing one right after its last all-reduce can deadlock
# against gloo's own thread (seen in accumulation-at-scale's claims on torch 2.13)
_ALIVE = []


def under_ddp_gradient_hooks_see_this_processs_gradient_before_the_average():
    """Two gloo ranks, DistributedDataParallel over a weight whose local gradients are 1 and 3: on each
    rank, a register_hook hook and a post-accumulate hook see that rank's own gradient (1 or 3), a
    communication hook (register_comm_hook) that runs DDP's own allreduce_hook sees the average, 2, in the
    bucket during backward, and .grad after backward holds the average, 2, on both. With .grad reset to
    None, a backward inside model.no_sync() leaves this rank's own gradient in .grad (1 or 3), and the
    next backward outside it leaves the average of the two ranks' sums, 4, on both. Then a second weight,
    0 on both ranks, stepped by SGD (lr 1) in a post-accumulate hook that sets .grad to None: the weights
    end apart, -1 on rank 0 and -3 on rank 1, and .grad after that synchronising backward is not None
    but 0 (written back by DDP)."""
    import torch._dynamo  # noqa: F401  DDP() imports it: once here, not in each worker
    context = mp.get_context("fork")
    results = context.Queue()
    folder = tempfile.mkdtemp()
    workers = [context.Process(target=_hooked_worker, daemon=True,
                               args=(rank, os.path.join(folder, "store"), results)) for rank in range(2)]
    try:
        for process in workers:
            process.start()
        found = sorted(results.get(timeout=30) for _ in workers)
        for process in workers:
            process.join(30)
    finally:
        for process in workers:
            if process.is_alive():
                process.terminate()
                process.join(30)
            if process.is_alive():
                process.kill()
                process.join()
        shutil.rmtree(folder, ignore_errors=True)
    assert found == [(0, 1.0, 1.0, 2.0, 2.0, 1.0, 4.0, -1.0, 0.0), (1, 3.0, 3.0, 2.0, 2.0, 3.0, 4.0, -3.0, 0.0)], found


def _hooked_worker(rank, store_path, results):
    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=30))
    try:
        layer = nn.Linear(1, 1, bias=False)
        model = nn.parallel.DistributedDataParallel(layer)
        _ALIVE.append(model)
        arriving, accumulated, communicated = [], [], []

        def communicate(state, bucket):
            averaged = default_hooks.allreduce_hook(state, bucket)
            return averaged.then(lambda future: communicated.append(future.value()[0].item()) or future.value())

        model.register_comm_hook(None, communicate)
        layer.weight.register_hook(lambda grad: arriving.append(grad.item()))
        layer.weight.register_post_accumulate_grad_hook(lambda p: accumulated.append(p.grad.item()))
        model(torch.tensor([[1.0 + 2 * rank]])).sum().backward()  # gradient 1 on rank 0, 3 on rank 1
        head = (rank, *arriving, *accumulated, *communicated, layer.weight.grad.item())
        layer.weight.grad = None
        with model.no_sync():
            model(torch.tensor([[1.0 + 2 * rank]])).sum().backward()
        local = layer.weight.grad.item()
        model(torch.tensor([[1.0 + 2 * rank]])).sum().backward()  # local sums 2 and 6
        synced = layer.weight.grad.item()
        stepped = nn.Linear(1, 1, bias=False)
        nn.init.zeros_(stepped.weight)
        model = nn.parallel.DistributedDataParallel(stepped)
        _ALIVE.append(model)
        optimizer = torch.optim.SGD([stepped.weight], lr=1.0)

        def step(p):
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

        stepped.weight.register_post_accumulate_grad_hook(step)
        model(torch.tensor([[1.0 + 2 * rank]])).sum().backward()
        after = None if stepped.weight.grad is None else stepped.weight.grad.item()
        results.put((*head, local, synced, stepped.weight.item(), after))
    finally:
        dist.destroy_process_group()


def module_hooks_run_in_registration_order_and_always_call_runs_when_forward_raises():
    """Hooks of one kind on one module (forward pre-hooks, forward hooks, full backward pre-hooks, full
    backward hooks) run in the order they were registered, except one registered with prepend=True,
    which runs before those already there. A forward hook registered with always_call=True also runs
    when forward raises, with None as the output, and the error still propagates; one registered
    without it does not run."""
    layer = nn.Linear(2, 2)
    order = []
    for kind in ("register_forward_pre_hook", "register_forward_hook",
                 "register_full_backward_pre_hook", "register_full_backward_hook"):
        for label, prepend in (("first", False), ("second", False), ("prepended", True)):
            getattr(layer, kind)(lambda *args, kind=kind, label=label: order.append((kind, label)),
                                 prepend=prepend)
    layer(torch.ones(1, 2, requires_grad=True)).sum().backward()
    assert order == [(kind, label) for kind in ("register_forward_pre_hook", "register_forward_hook",
                                                "register_full_backward_pre_hook", "register_full_backward_hook")
                     for label in ("prepended", "first", "second")], order

    layer = nn.Linear(2, 2)
    outputs = {}
    layer.register_forward_hook(lambda module, args, output: outputs.setdefault("always", output), always_call=True)
    layer.register_forward_hook(lambda module, args, output: outputs.setdefault("plain", output))
    try:
        layer(torch.ones(1, 3))  # the wrong width: forward raises
    except RuntimeError:
        pass
    else:
        raise AssertionError("forward did not raise")
    assert outputs == {"always": None}, outputs


def a_module_called_twice_runs_its_hooks_twice():
    """A module called twice in one forward (the same Linear applied twice) runs its forward pre-hook and
    forward hook at each call, and its full backward pre-hook and full backward hook once per call in
    backward, each time with that call's grad_output."""
    torch.manual_seed(0)
    layer, calls, seen = nn.Linear(3, 3), [], []
    layer.register_forward_pre_hook(lambda *args: calls.append("forward pre"))
    layer.register_forward_hook(lambda *args: calls.append("forward"))
    layer.register_full_backward_pre_hook(lambda module, grad_output: calls.append("backward pre"))
    layer.register_full_backward_hook(
        lambda module, grad_input, grad_output: calls.append("backward") or seen.append(grad_output[0].clone()))
    x, c = torch.randn(4, 3, requires_grad=True), torch.randn(4, 3)
    middle = layer(x)
    out = layer(middle)
    assert calls == ["forward pre", "forward", "forward pre", "forward"], calls
    calls.clear()
    gradient_of_middle = c @ layer.weight.detach()
    (out * c).sum().backward()
    assert sorted(calls) == ["backward", "backward", "backward pre", "backward pre"], calls
    assert len(seen) == 2, len(seen)
    assert any(torch.equal(g, c) for g in seen), seen
    assert any(torch.allclose(g, gradient_of_middle) for g in seen) and not torch.allclose(c, gradient_of_middle)


def global_module_hooks_run_before_a_modules_own():
    """A hook registered for every module at once (torch.nn.modules.module.register_module_forward_pre_hook,
    register_module_forward_hook, register_module_full_backward_pre_hook, register_module_full_backward_hook)
    runs before the module's own hooks of the same kind, before one registered with prepend=True too."""
    from torch.nn.modules import module as module_hooks

    layer = nn.Linear(2, 2)
    order, handles = [], []
    kinds = ("forward_pre_hook", "forward_hook", "full_backward_pre_hook", "full_backward_hook")
    try:
        for kind in kinds:
            getattr(layer, f"register_{kind}")(lambda *args, kind=kind: order.append((kind, "own")))
            getattr(layer, f"register_{kind}")(lambda *args, kind=kind: order.append((kind, "prepended")),
                                               prepend=True)
            register_global = getattr(module_hooks, f"register_module_{kind}")
            handles.append(register_global(lambda *args, kind=kind: order.append((kind, "global"))))
        layer(torch.ones(1, 2, requires_grad=True)).sum().backward()
    finally:
        for handle in handles:
            handle.remove()
    assert order == [(kind, label) for kind in kinds for label in ("global", "prepended", "own")], order
