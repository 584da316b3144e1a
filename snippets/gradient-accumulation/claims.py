"""Checks behind gradient-accumulation's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`gradient-accumulation/<name>` on a page names one)."""

import functools
import math
import runpy
import subprocess
import sys
import warnings
import weakref
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn


def accumulate_grad_node_puts_the_first_gradient_in_place_then_adds():
    """A leaf's gradient goes through its AccumulateGrad node: into a None .grad it puts the gradient
    it receives (the very tensor, when its layout fits); later gradients it adds into that tensor in
    place, for a vector and for a Linear's weight matrix alike, except in two cases that put the sum
    into .grad as a new tensor: backward(create_graph=True), which also warns of a reference cycle
    (once per process: three such calls in a fresh interpreter give one warning), and a sparse .grad that receives a dense gradient."""
    w = torch.tensor([1.0], requires_grad=True)
    node = (w * 3).grad_fn.next_functions[0][0]
    assert type(node).__name__ == "AccumulateGrad" and node.variable is w
    assert w.grad is None
    arrived = []  # the address of the gradient that reaches w (the tensor itself would be copied)
    handle = w.register_hook(lambda grad: arrived.append(grad.data_ptr()))
    (w * 3).sum().backward()
    handle.remove()
    first = w.grad
    assert first.item() == 3.0 and first.data_ptr() == arrived[0]
    (w * 5).sum().backward()
    assert w.grad is first and first.item() == 8.0
    with warnings.catch_warnings():  # given once per process: a fresh interpreter counts it below
        warnings.simplefilter("ignore")
        (w * 2).sum().backward(create_graph=True)
    assert w.grad is not first and w.grad.item() == 10.0 and first.item() == 8.0

    torch.manual_seed(0)
    layer = nn.Linear(4, 3)
    layer(torch.randn(5, 4)).sum().backward()
    first = layer.weight.grad
    layer(torch.randn(5, 4)).sum().backward()
    assert layer.weight.grad is first

    table = nn.Embedding(4, 2, sparse=True)
    table(torch.tensor([1])).sum().backward()
    first = table.weight.grad
    assert first.is_sparse
    (table.weight * 1.0).sum().backward()  # a dense gradient
    assert table.weight.grad is not first and not table.weight.grad.is_sparse
    fresh = subprocess.run([sys.executable, "-c", _CYCLE_WARNINGS], capture_output=True, text=True, check=True)
    assert fresh.stdout.split() == ["1"], fresh.stdout + fresh.stderr


_CYCLE_WARNINGS = """
import warnings, torch
w = torch.tensor([1.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _ in range(3):
        (w * 2).sum().backward(create_graph=True)
print(sum("reference cycle" in str(warning.message) for warning in caught))
"""


def autograd_grad_writes_no_grad_and_backward_inputs_only_the_leaves_listed():
    """torch.autograd.grad returns gradients and writes no leaf's .grad; backward(inputs=[...]) adds
    into the .grad of the leaves listed only, and the tensors listed may be non-leaves; with either, a
    non-leaf on the path that called retain_grad() gets a .grad."""
    a = torch.tensor([1.0], requires_grad=True)
    b = torch.tensor([2.0], requires_grad=True)
    (grad_a, grad_b) = torch.autograd.grad((a * b).sum(), [a, b])
    assert (grad_a.item(), grad_b.item()) == (2.0, 1.0)
    assert a.grad is None and b.grad is None
    h = a * 2
    h.retain_grad()
    torch.autograd.grad((h * b).sum(), [a])
    assert a.grad is None and b.grad is None and h.grad.item() == 2.0
    (a * b).sum().backward(inputs=[a])
    (a * b).sum().backward(inputs=[a])
    assert a.grad.item() == 4.0 and b.grad is None
    a.grad = None
    h = a * 2
    h.retain_grad()
    (h * b).sum().backward(inputs=[a])
    assert a.grad.item() == 4.0 and b.grad is None and h.grad.item() == 2.0
    a.grad = None
    h = a * 2
    (h * b).sum().backward(inputs=[h])
    assert not h.is_leaf and h.grad.item() == 2.0 and a.grad is None and b.grad is None


def _optimizer_classes():
    """Every optimizer class torch.optim offers on this torch."""
    return [cls for cls in vars(torch.optim).values()
            if isinstance(cls, type) and issubclass(cls, torch.optim.Optimizer) and cls is not torch.optim.Optimizer]


def zero_grad_defaults_to_set_to_none():
    """model.zero_grad() and the zero_grad() of every optimizer torch.optim offers, called without
    arguments, set .grad to None; with set_to_none=False they fill the same tensor with zeros."""
    owners = [(nn.Module.zero_grad, "nn.Module")] + [(cls.zero_grad, cls.__name__) for cls in _optimizer_classes()]
    assert len(owners) > 12
    for _, name in owners:
        model = nn.Linear(2, 2, bias=False)  # a matrix: some optimizers (Muon) take no other shape
        owner = model if name == "nn.Module" else getattr(torch.optim, name)(model.parameters())
        model(torch.ones(1, 2)).sum().backward()
        owner.zero_grad()
        assert model.weight.grad is None, name
        model(torch.ones(1, 2)).sum().backward()
        filled = model.weight.grad
        owner.zero_grad(set_to_none=False)
        assert model.weight.grad is filled and not filled.any(), name


def backward_adds_into_zeros_but_puts_a_fresh_tensor_into_none():
    """After zero_grad(set_to_none=False) the next backward() adds into the zeroed tensor; after the
    default zero_grad() it puts a new tensor in place, and the old gradient tensor, as large as its
    parameter, is freed at the clearing unless other code holds it; code that holds it keeps the old
    gradient, and the next backward() puts its gradient into another tensor."""
    p = nn.Parameter(torch.ones(3))
    optimizer = torch.optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    optimizer.zero_grad(set_to_none=False)
    zeros = p.grad
    assert not zeros.any()
    (p * 2).sum().backward()
    assert p.grad is zeros and torch.equal(zeros, torch.full((3,), 2.0))
    old = weakref.ref(zeros)
    assert zeros.shape == p.shape
    optimizer.zero_grad()
    assert p.grad is None and old() is zeros  # held here
    del zeros
    assert old() is None  # freed at once
    (p * 2).sum().backward()
    assert torch.equal(p.grad, torch.full((3,), 2.0))
    old = weakref.ref(p.grad)
    optimizer.zero_grad(set_to_none=False)
    assert old() is p.grad
    optimizer.zero_grad()
    assert p.grad is None and old() is None
    (p * 2).sum().backward()
    held = p.grad  # a reference kept across the default clearing keeps the old gradient
    optimizer.zero_grad()
    (p * 3).sum().backward()
    assert p.grad is not held and torch.equal(held, torch.full((3,), 2.0))
    assert torch.equal(p.grad, torch.full((3,), 3.0))


# Options that give an optimizer something to apply even without a gradient (momentum, weight
# decay) wherever it accepts them; an optimizer not listed runs with its defaults.
_OPTIONS = {"SGD": dict(lr=0.1, momentum=0.9, weight_decay=0.1), "Rprop": {}, "LBFGS": {}, "SparseAdam": {},
            "Adam": dict(weight_decay=0.1), "AdamW": dict(weight_decay=0.1), "RMSprop": dict(weight_decay=0.1),
            "Adagrad": dict(weight_decay=0.1), "Adamax": dict(weight_decay=0.1), "NAdam": dict(weight_decay=0.1),
            "RAdam": dict(weight_decay=0.1), "Adadelta": dict(weight_decay=0.1), "ASGD": dict(weight_decay=0.1),
            "Adafactor": dict(weight_decay=0.1)}


def _moves_a_parameter_whose_grad_is_none(cls):
    """One step with both p and q in the loss, then one with p only: did q move, its .grad being None?"""
    torch.manual_seed(0)
    sparse = cls is torch.optim.SparseAdam  # it takes sparse gradients only
    p, q = nn.Embedding(4, 2, sparse=sparse), nn.Embedding(4, 2, sparse=sparse)
    rows = torch.arange(4)
    optimizer = cls([p.weight, q.weight], **_OPTIONS.get(cls.__name__, {}))

    def both():
        optimizer.zero_grad()
        loss = (p(rows) + 3 * q(rows)).pow(2).sum() + p(rows).pow(2).sum() + q(rows).pow(2).sum()
        loss.backward()
        return loss

    def p_only():
        optimizer.zero_grad()
        loss = (p(rows) - 1).pow(2).sum()
        loss.backward()
        return loss

    optimizer.step(both)  # a real step first: state (momentum, running averages, LBFGS's history)
    before = q.weight.detach().clone()
    optimizer.step(p_only)
    assert q.weight.grad is None
    return not torch.equal(q.weight.detach(), before)


def builtin_optimizers_and_clipping_skip_none():
    """Of the optimizers torch.optim offers, LBFGS alone moves a parameter whose .grad is None (the
    others run with momentum or weight decay where they have them); clip_grad_norm_ leaves the None
    gradients out of the total norm: 0 when all are None, the others' norm when some are;
    clip_grad_value_ leaves a None .grad None and clamps the others."""
    classes = _optimizer_classes()
    assert len(classes) > 12
    moving = {cls.__name__ for cls in classes if _moves_a_parameter_whose_grad_is_none(cls)}
    assert moving == {"LBFGS"}, moving
    assert nn.utils.clip_grad_norm_([nn.Parameter(torch.ones(3))], 1.0).item() == 0.0
    without, with_grad = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
    with_grad.grad = torch.tensor([3.0, 4.0])
    assert nn.utils.clip_grad_norm_([without, with_grad], 100.0).item() == 5.0 and without.grad is None
    nn.utils.clip_grad_value_([without, with_grad], 3.5)
    assert without.grad is None and with_grad.grad.tolist() == [3.0, 3.5]


def _one_by_one_and_summed(count, shared, held=False):
    """w.grad after one backward() per loss and after one backward() of their sum. Each loss is
    (h * factor).sum(): with shared=False h is w itself, so the gradients first meet at w; with
    shared=True h = x @ w, a layer every loss passes through, where they meet before reaching w.
    With held=True, w.grad holds the same random gradient before both; otherwise it is None."""
    w = torch.randn(5, 7, requires_grad=True)
    x, factors = torch.randn(11, 5), torch.randn(count, 11 if shared else 5, 7)
    start = torch.randn(5, 7) if held else None

    def losses():
        h = x @ w if shared else w
        return [(h * factor).sum() for factor in factors]

    w.grad = None if start is None else start.clone()
    for loss in losses():
        loss.backward(retain_graph=True)  # the shared layer saved x for the next loss's backward()
    one_by_one, w.grad = w.grad, None if start is None else start.clone()
    sum(losses()).backward()
    return one_by_one, w.grad


def one_backward_per_loss_equals_the_backward_of_their_sum_up_to_rounding():
    """Calling backward() on losses one by one and once on their sum leave the same .grad: bit for bit
    with two losses whose gradients first meet at w and .grad starting as None; up to float32
    rounding, and in some of 50 draws not bit for bit, when .grad already holds a gradient, with two
    losses through a shared layer or with three losses."""
    torch.manual_seed(0)
    for count, shared, held in ((2, False, False), (2, True, False), (3, False, False), (2, False, True)):
        differ = 0
        for _ in range(50):
            one_by_one, summed = _one_by_one_and_summed(count, shared, held)
            assert (one_by_one - summed).abs().max() <= 1e-6 * summed.abs().max(), (count, shared, held)
            differ += not torch.equal(one_by_one, summed)
        bitwise = (count, shared, held) == (2, False, False)
        assert (differ == 0) if bitwise else (differ > 0), (count, shared, held, differ)


def losses_sharing_a_graph_need_retain_graph_on_all_but_the_last():
    """Two losses from one forward through a shared trunk: the second backward() raises, because the
    first freed the tensors the trunk saved; with retain_graph=True on the first, the two leave the
    gradient of their sum, as one backward() of their sum does without it. Two losses from two
    forwards need nothing, and neither do two losses whose shared part saved no tensor (an addition)."""
    torch.manual_seed(0)
    trunk, head_a, head_b = nn.Linear(3, 4), nn.Linear(4, 1), nn.Linear(4, 1)
    x = torch.randn(8, 3)

    def losses():
        shared = torch.tanh(trunk(x))
        return head_a(shared).sum(), head_b(shared).sum()

    loss_a, loss_b = losses()
    loss_a.backward()
    try:
        loss_b.backward()
        raised = ""
    except RuntimeError as error:
        raised = str(error)
    assert "second time" in raised
    trunk.zero_grad()
    sum(losses()).backward()
    together = trunk.weight.grad.clone()
    trunk.zero_grad()
    loss_a, loss_b = losses()
    loss_a.backward(retain_graph=True)
    loss_b.backward()
    assert torch.allclose(trunk.weight.grad, together, atol=1e-6)
    trunk.zero_grad()
    losses()[0].backward()
    losses()[1].backward()  # a forward of its own
    assert torch.allclose(trunk.weight.grad, together, atol=1e-6)
    shift = nn.Parameter(torch.zeros(3))
    shared = x + shift  # an addition saves nothing for backward
    trunk_free_a, trunk_free_b = (shared * 2).sum(), (shared * 3).sum()
    trunk_free_a.backward()
    trunk_free_b.backward()
    assert torch.equal(shift.grad, torch.full((3,), 5.0 * len(x)))


def unused_and_frozen_parameters_keep_what_their_grad_held():
    """backward() leaves the .grad of a parameter it does not reach (unused, or frozen) as it was:
    None stays None, zeros from zero_grad(set_to_none=False) stay zeros, an old gradient stays."""
    torch.manual_seed(0)
    used, unused = nn.Linear(2, 1), nn.Linear(2, 1)
    x = torch.randn(4, 2)
    optimizer = torch.optim.SGD([*used.parameters(), *unused.parameters()], lr=0.1)
    used(x).sum().backward()
    assert unused.weight.grad is None
    (used(x).sum() + unused(x).sum()).backward()
    optimizer.zero_grad(set_to_none=False)
    used(x).sum().backward()
    assert unused.weight.grad is not None and not unused.weight.grad.any()
    optimizer.zero_grad()
    used(x).sum().backward()
    assert unused.weight.grad is None

    # Frozen after it already had a gradient: an optimizer built over the trainable parameters
    # only does not clear it, and the old gradient stays.
    frozen = nn.Linear(2, 1)
    (used(x).sum() + frozen(x).sum()).backward()
    old = frozen.weight.grad.clone()
    frozen.requires_grad_(False)
    trainable = torch.optim.SGD([p for p in [*used.parameters(), *frozen.parameters()] if p.requires_grad], lr=0.1)
    trainable.zero_grad()
    (used(x).sum() + frozen(x).sum()).backward()
    assert used.weight.grad is not None and torch.equal(frozen.weight.grad, old)


def model_zero_grad_reaches_parameters_no_optimizer_owns():
    """optimizer.zero_grad() leaves a parameter it does not own; model.zero_grad() clears it."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    optimizer = torch.optim.SGD(model[0].parameters(), lr=0.1)  # nobody owns model[1]
    model(torch.randn(4, 2)).sum().backward()
    optimizer.zero_grad()
    assert model[1].weight.grad is not None
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def _train(place, backward_before_the_loop=False):
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    probe = torch.randn(2, 3)
    if backward_before_the_loop:
        model(probe).sum().backward()  # a quick shape check, say
    for _ in range(3):
        x, y = torch.randn(8, 3), torch.randn(8, 1)
        if place == "first":
            optimizer.zero_grad()
        loss = F.mse_loss(model(x), y)
        if place == "between":
            optimizer.zero_grad()
        if place == "step before backward":
            optimizer.zero_grad()
            optimizer.step()
            loss.backward()
            continue
        loss.backward()
        optimizer.step()
        if place == "after":
            optimizer.zero_grad()
    return model.weight.detach().clone()


def zero_grad_anywhere_before_backward_trains_the_same():
    """zero_grad() at the top, between the forward and backward(), or after step() trains bit-identical
    parameters; step() before backward() trains something else."""
    clean = _train("first")
    assert all(torch.equal(_train(place), clean) for place in ("between", "after"))
    assert not torch.allclose(_train("step before backward"), clean)


def zero_grad_first_clears_a_gradient_left_before_the_loop():
    """With a backward() before the loop, zero_grad() at the top trains as if it had not happened;
    zero_grad() after step() lets the first step use the leftover gradient."""
    clean = _train("first", backward_before_the_loop=False)
    assert torch.equal(_train("first", backward_before_the_loop=True), clean)
    assert torch.equal(_train("after", backward_before_the_loop=False), clean)
    assert not torch.allclose(_train("after", backward_before_the_loop=True), clean)


def _final_weight(cls, loss_scale, **options):
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    optimizer = cls(model.parameters(), **options)
    x, y = torch.randn(64, 8), torch.randn(64, 1)
    for _ in range(5):
        optimizer.zero_grad()
        (loss_scale * F.mse_loss(model(x), y)).backward()
        optimizer.step()
    return model.weight.detach().clone()


def a_scaled_gradient_is_a_scaled_learning_rate_only_for_sgd_without_weight_decay():
    """A gradient 4 times too large trains like a learning rate 4 times larger with SGD without weight
    decay, with momentum 0 or 0.9; with weight decay it does not; Adam without weight decay, and AdamW
    with it, almost cancel the factor; Adam's weight_decay (added to the gradient) keeps part of it."""
    SGD, Adam, AdamW = torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW
    for momentum in (0.0, 0.9):
        assert torch.allclose(_final_weight(SGD, 4.0, lr=0.1, momentum=momentum),
                              _final_weight(SGD, 1.0, lr=0.4, momentum=momentum))
    assert not torch.allclose(_final_weight(SGD, 4.0, lr=0.1, weight_decay=0.1),
                              _final_weight(SGD, 1.0, lr=0.4, weight_decay=0.1), atol=1e-3)
    assert torch.allclose(_final_weight(Adam, 4.0, lr=1e-2), _final_weight(Adam, 1.0, lr=1e-2), atol=1e-6)
    assert torch.allclose(_final_weight(AdamW, 4.0, lr=1e-2, weight_decay=0.1),
                          _final_weight(AdamW, 1.0, lr=1e-2, weight_decay=0.1), atol=1e-6)
    coupled = (_final_weight(Adam, 4.0, lr=1e-2, weight_decay=0.1)
               - _final_weight(Adam, 1.0, lr=1e-2, weight_decay=0.1)).abs().max().item()
    assert coupled > 1e-4  # 100 times the 1e-6 that the factor leaves without weight decay
    assert not torch.allclose(_final_weight(Adam, 1.0, lr=4e-2), _final_weight(Adam, 1.0, lr=1e-2), atol=1e-3)


def _clipped_run(cls, loss_scale, max_norm, **options):
    """Five steps of cls on one batch, the gradient clipped to max_norm before each: final weight, and
    the norms clip_grad_norm_ saw."""
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    optimizer = cls(model.parameters(), **options)
    x, y = torch.randn(64, 8), torch.randn(64, 1)
    norms = []
    for _ in range(5):
        optimizer.zero_grad()
        (loss_scale * F.mse_loss(model(x), y)).backward()
        norms.append(nn.utils.clip_grad_norm_(model.parameters(), max_norm).item())
        optimizer.step()
    return model.weight.detach().clone(), norms


def clipping_sees_an_undivided_gradient_at_its_full_size():
    """clip_grad_norm_ before the optimizer: a gradient 4 times too large shows a norm 4 times as large,
    so a max_norm above the right gradient's norm clips it, and the result moves away from the one it
    matched without clipping: Adam's with the right gradient, and SGD's (momentum 0 or 0.9) with the
    right gradient and a learning rate 4 times larger."""
    Adam, SGD = torch.optim.Adam, torch.optim.SGD
    for (cls, options), (big, small) in (((Adam, {}), ({"lr": 1e-2}, {"lr": 1e-2})),
                                          ((SGD, {"momentum": 0.0}), ({"lr": 0.1}, {"lr": 0.4})),
                                          ((SGD, {"momentum": 0.9}), ({"lr": 0.1}, {"lr": 0.4}))):
        right, norms = _clipped_run(cls, 1.0, math.inf, **options, **small)
        four_times, four_norms = _clipped_run(cls, 4.0, math.inf, **options, **big)
        assert all(math.isclose(big_norm, 4 * norm, rel_tol=1e-4) for norm, big_norm in zip(norms, four_norms))
        assert torch.allclose(four_times, right, rtol=0, atol=1e-6)
        max_norm = 2 * max(norms)
        right_clipped, _ = _clipped_run(cls, 1.0, max_norm, **options, **small)
        four_clipped, clipped_norms = _clipped_run(cls, 4.0, max_norm, **options, **big)
        assert torch.equal(right_clipped, right) and max(clipped_norms) > max_norm
        assert (four_clipped - right).abs().max() > 1e-4


def _never_cleared_and_momentum_one(weight_decay):
    torch.manual_seed(0)
    x, y = torch.randn(30, 3), torch.randn(30, 1)
    weights = []
    for momentum in (0.0, 1.0):
        torch.manual_seed(1)
        model = nn.Linear(3, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=momentum, weight_decay=weight_decay)
        for i in range(5):
            if momentum:
                optimizer.zero_grad()
            F.mse_loss(model(x[6 * i:6 * i + 6]), y[6 * i:6 * i + 6]).backward()
            optimizer.step()
        weights.append(model.weight.detach().clone())
    return weights


def never_clearing_is_momentum_one_only_without_weight_decay():
    """Never clearing .grad trains bit-identical parameters to SGD(momentum=1.0) with clearing, but only
    without weight decay: weight decay is added at step time, not into .grad."""
    never, momentum_one = _never_cleared_and_momentum_one(weight_decay=0.0)
    assert torch.equal(never, momentum_one)
    never, momentum_one = _never_cleared_and_momentum_one(weight_decay=0.1)
    assert not torch.allclose(never, momentum_one, atol=1e-3)


def uneven_micro_batches_need_weighting_by_their_share():
    """With micro-batches of 16, 16, 16, 16 and 6 samples, dividing each mean loss by 5 misses the
    big-batch gradient; weighting each by its sample count over 70 matches it."""
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    x, y = torch.randn(70, 3), torch.randn(70, 1)
    F.mse_loss(model(x), y).backward()
    big = torch.cat([p.grad.flatten() for p in model.parameters()])
    found = {}
    for weighting in ("by steps", "by share"):
        model.zero_grad()
        parts = list(zip(x.split(16), y.split(16)))
        for xb, yb in parts:
            loss = F.mse_loss(model(xb), yb)
            (loss / len(parts) if weighting == "by steps" else loss * len(xb) / len(x)).backward()
        found[weighting] = torch.cat([p.grad.flatten() for p in model.parameters()])
    assert torch.allclose(found["by share"], big, atol=1e-6)
    assert not torch.allclose(found["by steps"], big, atol=1e-3)


def a_remainder_of_micro_batches_stays_in_grad_after_the_loop():
    """The page's loop (step every accumulation_steps micro-batches) over 10 micro-batches with
    accumulation_steps = 4 ends with the last 2 micro-batches' gradients still in .grad."""
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    micro_batches = [(torch.randn(16, 3), torch.randn(16, 1)) for _ in range(10)]
    accumulation_steps = 4
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches, start=1):
        (F.mse_loss(model(x), y) / accumulation_steps).backward()
        if i % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    left = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    for x, y in micro_batches[8:]:
        (F.mse_loss(model(x), y) / accumulation_steps).backward()
    assert all(torch.allclose(a, p.grad) and a.abs().sum() > 0 for a, p in zip(left, model.parameters()))


def clipping_and_the_scheduler_step_once_per_update():
    """In the page's loop (8 micro-batches, accumulation_steps = 4): clip_grad_norm_ once, just before
    step(), leaves the big batch's gradient clipped; after every backward() it clips each partial sum
    and leaves another gradient. A scheduler stepped per micro-batch has, after the 2 updates, the
    learning rate the per-update schedule reaches after 8, and torch warns once, at its first step(),
    that lr_scheduler.step() ran before optimizer.step(); the per-update scheduler gets no warning."""
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    micro_batches = [(torch.randn(16, 3), torch.randn(16, 1)) for _ in range(4)]
    x, y = torch.cat([x for x, _ in micro_batches]), torch.cat([y for _, y in micro_batches])
    F.mse_loss(model(x), y).backward()
    big = torch.cat([p.grad.flatten() for p in model.parameters()])
    max_norm = 0.5 * big.norm().item()
    clipped = {}
    for place in ("before step()", "after every backward()"):
        model.zero_grad()
        for xb, yb in micro_batches:
            (F.mse_loss(model(xb), yb) / 4).backward()
            if place == "after every backward()":
                nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        if place == "before step()":
            nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        clipped[place] = torch.cat([p.grad.flatten() for p in model.parameters()])
    assert torch.allclose(clipped["before step()"], big * 0.5, atol=1e-6)
    assert not torch.allclose(clipped["after every backward()"], big * 0.5, atol=1e-3)

    rates, warned = {}, {}
    for per in ("update", "micro-batch"):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for i in range(1, 9):
                if per == "micro-batch":
                    scheduler.step()
                if i % 4 == 0:
                    optimizer.step()
                    if per == "update":
                        scheduler.step()
        rates[per] = optimizer.param_groups[0]["lr"]
        warned[per] = sum("`lr_scheduler.step()` before `optimizer.step()`" in str(w.message) for w in caught)
    assert math.isclose(rates["update"], 0.1 * 0.9 ** 2) and math.isclose(rates["micro-batch"], 0.1 * 0.9 ** 8)
    assert warned == {"update": 0, "micro-batch": 1}


def a_post_accumulate_grad_hook_fires_on_every_micro_batch():
    """In the page's loop (accumulation_steps = 4, here 8 micro-batches: 2 updates), an
    optimizer.step() called inside a register_post_accumulate_grad_hook hook runs 4 times per update:
    with a hook that only steps, and with PyTorch's optimizer-in-backward recipe, which steps and then
    clears .grad. The loop's own step() (after the 4th micro-batch) is not counted."""
    torch.manual_seed(0)
    micro_batches = [(torch.randn(16, 3), torch.randn(16, 1)) for _ in range(8)]
    for clears in (False, True):
        model = nn.Linear(3, 1)
        in_hook = {p: torch.optim.SGD([p], lr=0.1) for p in model.parameters()}
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        steps = {p: [] for p in model.parameters()}  # for each hook step: the update it belongs to
        update = [0]

        def hook(p):
            in_hook[p].step()
            steps[p].append(update[0])
            if clears:
                in_hook[p].zero_grad()

        for p in model.parameters():
            p.register_post_accumulate_grad_hook(hook)
        for i, (x, y) in enumerate(micro_batches, start=1):
            (F.mse_loss(model(x), y) / 4).backward()
            if i % 4 == 0:
                optimizer.step()
                optimizer.zero_grad()
                update[0] += 1
        for p in model.parameters():
            assert steps[p] == [0] * 4 + [1] * 4, (clears, steps[p])


def batchnorm_micro_batches_differ_by_more_than_a_factor():
    """With BatchNorm in training mode, four micro-batches give a gradient that no single factor turns
    into the big batch's, and each micro-batch's forward updates the running statistics once; in eval
    mode (running statistics) the four, each loss / 4, match it up to rounding."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 1))
    x, y = torch.randn(64, 8), torch.randn(64, 1)
    F.mse_loss(model(x), y).backward()
    big = model[0].weight.grad.flatten().clone()
    model.zero_grad()
    for xb, yb in zip(x.chunk(4), y.chunk(4)):
        (F.mse_loss(model(xb), yb) / 4).backward()
    micro = model[0].weight.grad.flatten()
    assert model[1].num_batches_tracked.item() == 5  # the big batch's forward, then one per micro-batch
    best_factor = (micro @ big) / (micro @ micro)  # the factor that brings micro closest to big
    assert not torch.allclose(best_factor * micro, big, rtol=1e-2, atol=1e-4)
    assert torch.nn.functional.cosine_similarity(micro, big, dim=0) < 0.99
    model.eval()
    model.zero_grad()
    F.mse_loss(model(x), y).backward()
    big = model[0].weight.grad.flatten().clone()
    model.zero_grad()
    for xb, yb in zip(x.chunk(4), y.chunk(4)):
        (F.mse_loss(model(xb), yb) / 4).backward()
    assert torch.allclose(model[0].weight.grad.flatten(), big, atol=1e-6)


def _cross_entropy_gaps(target, **options):
    """For a Linear(8, 5) and 64 samples: the largest difference between the weight's gradient from
    four micro-batches (each cross_entropy / 4) and from the whole batch, and the largest entry."""
    torch.manual_seed(0)
    layer = nn.Linear(8, 5)
    x = torch.randn(64, 8)
    F.cross_entropy(layer(x), target, **options).backward()
    big = layer.weight.grad.clone()
    layer.zero_grad()
    for x_part, target_part in zip(x.chunk(4), target.chunk(4)):
        (F.cross_entropy(layer(x_part), target_part, **options) / 4).backward()
    return (layer.weight.grad - big).abs().max().item(), big.abs().max().item()


def micro_batches_match_only_when_every_mean_divides_by_the_same_count():
    """cross_entropy's mean divides by the targets not ignored (ignore_index) or by the sum of the
    targets' weights (weight=); when that count differs between micro-batches, four micro-batches,
    each loss / 4, miss the big batch's gradient by far more than rounding; plain, they match."""
    torch.manual_seed(1)
    target = torch.randint(0, 5, (64,))
    padded = target.clone()
    padded[:12] = -100  # padding, all of it in the first micro-batch
    weight = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
    logits = torch.randn(64, 5)
    each = F.cross_entropy(logits, target, reduction="none")
    kept = padded != -100
    assert torch.allclose(F.cross_entropy(logits, padded), each[kept].sum() / kept.sum())
    assert torch.allclose(F.cross_entropy(logits, target, weight=weight),
                          (weight[target] * each).sum() / weight[target].sum())
    gap, largest = _cross_entropy_gaps(target)
    assert gap < 1e-5 * largest
    gap, largest = _cross_entropy_gaps(padded)
    assert gap > 0.1 * largest, (gap, largest)
    gap, largest = _cross_entropy_gaps(target, weight=weight)
    assert gap > 0.02 * largest, (gap, largest)


def _dropout_gradient(model, x, y, parts, masks=None):
    """The first layer's gradient from `parts` micro-batches (each loss / parts); with `masks`, the
    dropout layer applies those rows of the given mask instead of drawing its own."""
    model.zero_grad()
    for index, (xb, yb) in enumerate(zip(x.chunk(parts), y.chunk(parts))):
        handle = None
        if masks is not None:
            mask = masks.chunk(parts)[index]
            handle = model[2].register_forward_hook(lambda module, args, out, mask=mask: args[0] * mask / 0.9)
        (F.mse_loss(model(xb), yb) / parts).backward()
        if handle is not None:
            handle.remove()
    return model[0].weight.grad.clone()


def with_dropout_micro_batches_match_the_big_batch_only_with_its_masks():
    """With nn.Dropout(0.1) in training mode: four micro-batches that apply the big batch's masks leave
    its gradient up to rounding; four that draw masks of their own (another generator state) do not.
    In eval mode dropout draws no mask, and four micro-batches match the big batch."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Dropout(0.1), nn.Linear(32, 1))
    x, y = torch.randn(64, 8), torch.randn(64, 1)
    seen = []
    handle = model[2].register_forward_hook(lambda module, args, out: seen.append(out.detach() != 0))
    torch.manual_seed(1)
    big = _dropout_gradient(model, x, y, 1)
    handle.remove()
    masks = seen[0].float()  # tanh is never exactly 0 here, so a 0 after dropout is a dropped entry
    assert 0 < masks.mean() < 1
    assert torch.allclose(_dropout_gradient(model, x, y, 4, masks), big, atol=1e-6)
    torch.manual_seed(2)
    assert not torch.allclose(_dropout_gradient(model, x, y, 4), big, atol=1e-3)
    model.eval()
    assert torch.allclose(_dropout_gradient(model, x, y, 4), _dropout_gradient(model, x, y, 1), atol=1e-6)


# The run the page shows: forget-zero-grad.py, run as a script (its output is discarded).
_FORGET = Path(__file__).with_name("forget-zero-grad.py")


@functools.cache
def _forget_run():
    """forget-zero-grad.py's namespace, the script run once (its output discarded)."""
    with redirect_stdout(StringIO()):
        return runpy.run_path(str(_FORGET))


def at_the_largest_learning_rate_the_loss_rises_every_epoch_until_it_overflows():
    """In forget-zero-grad.py's run at its largest learning rate without zero_grad, the loss of every
    epoch after the lowest one is above the epoch before, up to the first epoch whose loss is inf, the
    epochs the page glues; within the 50 epochs the loss is never NaN."""
    run = _forget_run()
    losses, _ = run["train"](run["LEARNING_RATES"][-1], zero_grad="never")
    lowest = min(range(len(losses)), key=losses.__getitem__) + 1  # epochs numbered from 1, as on the page
    overflow = next(epoch for epoch in range(1, len(losses) + 1) if math.isinf(losses[epoch - 1]))
    assert (lowest, overflow) == (run["lowest"] + 1, run["overflow"])  # what the page glues
    assert lowest < overflow
    assert all(losses[epoch - 1] > losses[epoch - 2] for epoch in range(lowest + 1, overflow + 1))
    assert not any(math.isnan(loss) for loss in losses)


def forgetting_table_swings_climbs_and_grows_several_fold():
    """The words of the page's table for forget-zero-grad.py without zero_grad, after each learning
    rate's lowest epoch: the smallest goes up and down at least 10 times each, and its last 25 epochs
    stay below twice the highest of its first 25; the middle one rises every epoch; the largest grows
    at least 3-fold every epoch until its loss overflows."""
    run = _forget_run()
    smallest, middle, largest = (run["train"](lr, zero_grad="never")[0] for lr in run["LEARNING_RATES"])

    def after_lowest(losses):
        lowest = min(range(len(losses)), key=losses.__getitem__)
        return [later / earlier for earlier, later in zip(losses[lowest:], losses[lowest + 1:])]

    factors = after_lowest(smallest)
    assert sum(f > 1 for f in factors) >= 10 and sum(f < 1 for f in factors) >= 10, factors
    assert max(smallest[25:]) < 2 * max(smallest[:25])
    assert all(f > 1 for f in after_lowest(middle))
    overflow = next(epoch for epoch, loss in enumerate(largest) if math.isinf(loss))
    assert all(f >= 3 for f in after_lowest(largest[:overflow]))


def _never_cleared_losses(run, lr, targets_on_a_line, batch):
    """forget-zero-grad.py's run without zero_grad, optionally with its targets' noise removed; with
    the whole data set as the batch, for as many steps as the batched run takes."""
    samples = run["SAMPLES"]
    epochs = run["EPOCHS"] * samples // run["BATCH"] if batch == samples else run["EPOCHS"]
    torch.manual_seed(0)
    x, y = run["make_data"]()
    if targets_on_a_line:  # every batch's gradient is then 0 at the same point, the data's own line
        y = x @ torch.tensor([[2.0], [-1.0], [0.5]]) + 1.0
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        total = 0.0
        for start in range(0, samples, batch):
            loss = F.mse_loss(model(x[start:start + batch]), y[start:start + batch])
            loss.backward()
            optimizer.step()
            total += loss.item() * batch
        losses.append(total / samples)
    return losses


def with_batches_the_loss_grows_from_their_curvatures_not_from_the_noise():
    """Never clearing, with batches of 32: the middle and the largest learning rate grow as much
    with targets exactly on a line (no noise; the batches differ only in their inputs, so in the
    curvature x.T @ x of their losses) as with the page's noisy targets; with the whole data set in
    every step (one curvature) the loss stays below twice its first value, and so it does with any
    one batch of 32 repeated for as many steps: no batch is unstable on its own."""
    run = _forget_run()
    batch, samples = run["BATCH"], run["SAMPLES"]
    _, middle, largest = run["LEARNING_RATES"]
    x, y = run["make_data"]()
    for start in range(0, samples, batch):
        torch.manual_seed(0)
        model = nn.Linear(3, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=largest)
        losses = []
        for _ in range(run["EPOCHS"] * samples // batch):
            loss = F.mse_loss(model(x[start:start + batch]), y[start:start + batch])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        assert max(losses) < 2 * losses[0], (start, max(losses), losses[0])
    for targets_on_a_line in (False, True):
        losses = _never_cleared_losses(run, middle, targets_on_a_line, batch)
        assert losses[-1] > 1e5 * min(losses), (targets_on_a_line, losses[-1])
        losses = _never_cleared_losses(run, largest, targets_on_a_line, batch)
        assert math.isinf(losses[-1]), (targets_on_a_line, losses[-1])
        full = _never_cleared_losses(run, largest, targets_on_a_line, samples)
        assert max(full) < 2 * full[0], (targets_on_a_line, max(full), full[0])


def the_first_infinite_loss_sums_finite_squared_errors():
    """forget-zero-grad.py's run at its largest learning rate without zero_grad, for its 50 epochs: the
    first batch whose loss is inf comes in the epoch the page glues; no squared error of that epoch is
    inf in float32, and in that batch their mean is finite, their sum above float32's largest number,
    the parameters finite; in every later epoch at least one squared error is inf."""
    run = _forget_run()
    samples, batch = run["SAMPLES"], run["BATCH"]
    biggest = torch.finfo(torch.float32).max
    torch.manual_seed(0)
    x, y = run["make_data"]()
    model = nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=run["LEARNING_RATES"][-1])
    first, overflowing = None, []  # the epoch of the first inf loss; per epoch, batches with an inf square
    for epoch in range(1, run["EPOCHS"] + 1):
        overflowing.append(0)
        for start in range(0, samples, batch):
            out = model(x[start:start + batch])
            loss = F.mse_loss(out, y[start:start + batch])
            squares = (out - y[start:start + batch]) ** 2
            overflowing[-1] += bool(torch.isinf(squares).any())
            if first is None and math.isinf(loss.item()):
                first = epoch
                assert torch.isfinite(squares).all() and squares.double().mean() < biggest
                assert squares.double().sum() > biggest
                assert all(torch.isfinite(p).all() for p in model.parameters())
            loss.backward()
            optimizer.step()
    assert first == run["overflow"]  # the epoch the page names
    assert overflowing[first - 1] == 0  # in that epoch only the sum inside the mean overflows
    assert first < run["EPOCHS"] and all(overflowing[first:])  # from the next epoch, squares too
