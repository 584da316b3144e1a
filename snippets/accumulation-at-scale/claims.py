"""Checks behind accumulation-at-scale's sentences that no output on the page shows (tests/test_claims.py
runs each on every supported torch; {claim}`accumulation-at-scale/<name>` on a page names one)."""

import contextlib
import datetime
import itertools
import math
import os
import shutil
import socket
import tempfile
import warnings

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode


class _Dtypes(TorchDispatchMode):
    """Records, for every aten operation run while it is active, its name, the dtypes of its tensor
    arguments and the dtypes of the tensors it returns."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        returned = [t.dtype for t in (out if isinstance(out, (tuple, list)) else [out]) if isinstance(t, torch.Tensor)]
        self.calls.append((func.overloadpacket.__name__, [a.dtype for a in args if isinstance(a, torch.Tensor)],
                           returned))
        return out

    def of(self, name):
        return [dtypes for called, dtypes, _ in self.calls if called == name]

    def returned_by(self, name):
        return [dtypes for called, _, dtypes in self.calls if called == name]


def backward_runs_each_autocast_op_in_its_forward_dtype():
    """Under CPU autocast (bfloat16 and float16), the operations the backward pass runs take the dtype of
    their forward: the matrix products (mm, for addmm), ReLU's and LayerNorm's backward in the low dtype,
    log_softmax's and nll_loss's (cross_entropy) in float32. For that model, backward() called inside the
    autocast block runs the same operations in the same dtypes and leaves the same .grad as called outside
    it; but a Linear run in float32 under autocast(enabled=False) has its backward's matrix products in
    float32 when backward() is called outside the block, in the low dtype when it is called inside."""
    for dtype in (torch.bfloat16, torch.float16):
        inside = {}
        for backward_inside in (True, False):
            torch.manual_seed(0)
            model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.LayerNorm(32), nn.Linear(32, 4))
            with _Dtypes() as forward, torch.autocast("cpu", dtype=dtype):
                loss = nn.functional.cross_entropy(model(torch.randn(8, 16)), torch.randint(0, 4, (8,)))
                if backward_inside:
                    with _Dtypes() as backward:
                        loss.backward()
                    inside = {"calls": backward.calls, "grads": [p.grad for p in model.parameters()]}
            if not backward_inside:
                with _Dtypes() as backward:
                    loss.backward()
        assert backward.calls == inside["calls"], (backward.calls, inside["calls"])
        assert all(torch.equal(p.grad, g) for p, g in zip(model.parameters(), inside["grads"]))
        assert forward.of("addmm") == [[dtype] * 3] * 2 and forward.of("relu") == [[dtype]]
        assert backward.of("mm") == [[dtype, dtype]] * 3 and backward.of("threshold_backward") == [[dtype, dtype]]
        assert forward.of("native_layer_norm")[0][0] == dtype and backward.of("native_layer_norm_backward")[0][:2] == [
            dtype, dtype]
        assert forward.of("_log_softmax") == [[torch.float32]]
        assert backward.of("_log_softmax_backward_data") == [[torch.float32, torch.float32]]
        assert forward.of("nll_loss_forward")[0][0] == torch.float32
        assert backward.of("nll_loss_backward")[0][:2] == [torch.float32, torch.float32]

        products = {}  # backward() inside the block or not -> dtypes of each mm the backward ran
        for backward_inside in (True, False):
            torch.manual_seed(0)
            low, high = nn.Linear(8, 8), nn.Linear(8, 1)
            with torch.autocast("cpu", dtype=dtype):
                hidden = low(torch.randn(4, 8))
                with torch.autocast("cpu", enabled=False):
                    loss = high(hidden.float()).sum()
                if backward_inside:
                    with _Dtypes() as backward:
                        loss.backward()
            if not backward_inside:
                with _Dtypes() as backward:
                    loss.backward()
            products[backward_inside] = backward.of("mm")
        # outside: high's two products in float32, low's weight gradient in the low dtype; inside: all low
        assert products[False] == [[torch.float32] * 2] * 2 + [[dtype] * 2], products
        assert products[True] == [[dtype] * 2] * 3, products


class _GradientAs(torch.autograd.Function):
    """The identity; its backward returns the incoming gradient cast to `dtype`."""

    @staticmethod
    def forward(ctx, x, dtype):
        ctx.dtype = dtype
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad.to(ctx.dtype), None


def a_bfloat16_model_accumulates_its_gradient_in_bfloat16():
    """nn.Linear cast with .to(torch.bfloat16): after 64 micro-batches (each loss divided by 64, one backward()
    each) its weight's .grad is bfloat16, and its relative distance from the exact sum of the same 64
    micro-batch gradients is more than 3 times that of those gradients summed in float32 and rounded to
    bfloat16 once."""
    torch.manual_seed(0)
    model = nn.Linear(64, 8).to(torch.bfloat16)
    micro = [(torch.randn(16, 64, dtype=torch.bfloat16), torch.randn(16, 8, dtype=torch.bfloat16)) for _ in range(64)]
    parts = []  # each micro-batch's gradient, as backward() adds it into .grad
    for x, y in micro:
        loss = nn.functional.mse_loss(model(x), y) / len(micro)
        parts.append(torch.autograd.grad(loss, model.weight, retain_graph=True)[0])
        loss.backward()
    assert model.weight.grad.dtype == torch.bfloat16 and all(part.dtype == torch.bfloat16 for part in parts)
    exact = torch.stack(parts).double().sum(0)

    def distance(grad):
        return ((grad.double() - exact).norm() / exact.norm()).item()

    summed_in_float32 = torch.stack(parts).float().sum(0).to(torch.bfloat16)
    assert distance(model.weight.grad) > 3 * distance(summed_in_float32), (
        distance(model.weight.grad), distance(summed_in_float32))


def a_gradient_takes_the_dtype_of_the_tensor_it_reaches():
    """The engine gives a gradient the dtype of the tensor it flows into, whatever dtype the backward returned
    (bfloat16 for a float32 leaf arrives float32; float32 for a bfloat16 tensor arrives bfloat16). Under
    bfloat16 autocast the Linear weight's gradient comes back through the cast recorded in the forward,
    LayerNorm's weight and bias get theirs straight from LayerNorm's backward, which returns them in float32,
    and every .grad is float32."""
    leaf = torch.ones(3, requires_grad=True)
    _GradientAs.apply(leaf, torch.bfloat16).sum().backward()
    assert leaf.grad.dtype == torch.float32
    low, seen = torch.ones(3, requires_grad=True).to(torch.bfloat16), []
    low.register_hook(lambda grad: seen.append(grad.dtype))
    _GradientAs.apply(low, torch.float32).sum().backward()
    assert seen == [torch.bfloat16]

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.LayerNorm(32), nn.Linear(32, 4))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = nn.functional.cross_entropy(model(torch.randn(8, 16)), torch.randint(0, 4, (8,)))
    nodes, feeds = [loss.grad_fn], {}  # feeds: parameter name -> the node whose gradient reaches it
    names = {id(p): name for name, p in model.named_parameters()}
    for node in nodes:
        for parent, _ in node.next_functions:
            if parent is not None and hasattr(parent, "variable"):
                feeds[names[id(parent.variable)]] = type(node).__name__
            elif parent is not None and parent not in nodes:
                nodes.append(parent)
    assert feeds["0.weight"] == "ToCopyBackward0", feeds
    assert feeds["2.weight"] == feeds["2.bias"] == "NativeLayerNormBackward0", feeds
    with _Dtypes() as backward:
        loss.backward()
    # LayerNorm's backward itself returns float32 for its float32 weight and bias, bfloat16 for its input
    returned = backward.returned_by("native_layer_norm_backward")
    assert returned == [[torch.bfloat16, torch.float32, torch.float32]], returned
    assert all(p.dtype == torch.float32 and p.grad.dtype == torch.float32 for p in model.parameters())


def the_loss_to_log_is_the_unscaled_mean():
    """With micro-batches of equal size, the micro-batch losses (means) divided by their number add up to
    the whole batch's mean loss, up to float32 rounding (with sizes 16 and 48 they do not); the tensor
    scaler.scale returns is the loss times the scaler's current scale."""
    torch.manual_seed(0)
    model = nn.Linear(8, 1)
    x, y = torch.randn(64, 8), torch.randn(64, 1)
    with torch.no_grad():
        whole = nn.functional.mse_loss(model(x), y).item()
        for sizes in ([16] * 4, [16, 48]):
            parts = list(zip(x.split(sizes), y.split(sizes)))
            logged = sum(nn.functional.mse_loss(model(xb), yb).item() / len(parts) for xb, yb in parts)
            assert (abs(logged - whole) <= 1e-6 * whole) == (len(set(sizes)) == 1), (sizes, logged, whole)
    loss = nn.functional.mse_loss(model(x), y)
    for scaler in (torch.amp.GradScaler("cpu"), torch.amp.GradScaler("cpu", init_scale=1024.0)):
        assert scaler.scale(loss).item() == loss.item() * scaler.get_scale(), scaler.get_scale()


def autocast_rules_differ_by_device():
    """Autocast keeps its rules per device: layer_norm and softmax have a kernel registered for CUDA's
    autocast and none for the CPU's (linear, cast on both, has both, so the test can see a CPU rule), and
    under CPU autocast to bfloat16 they pass float32 and bfloat16 through unchanged while linear casts."""
    has = torch._C._dispatch_has_kernel_for_dispatch_key
    for op in ("aten::layer_norm", "aten::softmax.int"):
        assert has(op, "AutocastCUDA") and not has(op, "AutocastCPU"), op
    assert has("aten::linear", "AutocastCPU") and has("aten::linear", "AutocastCUDA")
    x, weight = torch.randn(2, 4), torch.randn(3, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        for dtype in (torch.float32, torch.bfloat16):
            assert nn.functional.layer_norm(x.to(dtype), (4,)).dtype == dtype, dtype
            assert torch.softmax(x.to(dtype), -1).dtype == dtype, dtype
        assert nn.functional.linear(x, weight).dtype == torch.bfloat16


def bfloat16_has_float32s_range_and_fewer_digits_than_float16():
    """bfloat16's smallest normal number is float32's and its largest is within 1% of float32's;
    float16's smallest normal is about 6.1e-5; bfloat16's eps (2**-7) is 8 times float16's (2**-10)."""
    bf16, f16, f32 = (torch.finfo(t) for t in (torch.bfloat16, torch.float16, torch.float32))
    assert bf16.smallest_normal == f32.smallest_normal
    assert abs(bf16.max / f32.max - 1) < 0.01
    assert abs(f16.smallest_normal - 6.1e-5) < 1e-6
    assert bf16.eps == 2 ** -7 and f16.eps == 2 ** -10


def float16_rounds_below_half_its_smallest_subnormal_to_zero():
    """float16's smallest subnormal is 2**-24 (about 6.0e-8): a float32 value just below half of it becomes 0,
    one just above half of it becomes 2**-24. Below the smallest normal number (2**-14) every value is a
    multiple of 2**-24, so the smaller it is the fewer digits it keeps: 1 + 2**-10 times 2**-14 survives the
    cast, 1 + 2**-9 times 2**-20 becomes 2**-20, 1.2 times 2**-23 becomes 2**-23."""
    half = torch.finfo(torch.float16)
    assert half.smallest_normal * half.eps == 2 ** -24
    values = torch.tensor([0.99 * 2 ** -25, 1.01 * 2 ** -25, 0.99 * 2 ** -24]).half().float()
    assert values.tolist() == [0.0, 2 ** -24, 2 ** -24]
    digits = torch.tensor([(1 + 2 ** -10) * 2 ** -14, (1 + 2 ** -9) * 2 ** -20, 1.2 * 2 ** -23]).half().float()
    assert digits.tolist() == [(1 + 2 ** -10) * 2 ** -14, 2 ** -20, 2 ** -23], digits.tolist()


def grad_scaler_defaults():
    """GradScaler("cpu") starts at 65536, halves the scale on a step with inf or NaN gradients and
    doubles it after 2000 steps in a row without (a step with inf or NaN starts the count again)."""
    scaler = torch.amp.GradScaler("cpu")
    assert scaler.get_scale() == 65536.0
    assert scaler.get_backoff_factor() == 0.5 and scaler.get_growth_factor() == 2.0
    assert scaler.get_growth_interval() == 2000
    # the halving, and the doubling with an interval of 2: clean, inf, clean, clean
    parameter = nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([parameter], lr=0.1)
    scaler, scales = torch.amp.GradScaler("cpu", growth_interval=2), []
    for factor in (1.0, float("inf"), 1.0, 1.0):
        scaler.scale((parameter * factor).sum()).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        scales.append(scaler.get_scale())
    assert scales == [65536.0, 32768.0, 32768.0, 65536.0], scales


def the_scale_falls_after_update_exactly_when_step_was_skipped():
    """With one optimizer per GradScaler and its default backoff (0.5), scaler.get_scale() is lower after
    update() than before step() exactly when scaler.step skipped optimizer.step(): for growth intervals 1
    (the scale grows after every clean step) and 2000. With two optimizers on one scaler, the scale falls
    when one of them is skipped although the other one stepped."""
    for interval in (1, 2000):
        parameter = nn.Parameter(torch.ones(2))
        optimizer = torch.optim.SGD([parameter], lr=0.1)
        taken = []
        optimizer.register_step_post_hook(lambda optimizer, args, kwargs: taken.append(1))
        scaler, skipped, fell = torch.amp.GradScaler("cpu", growth_interval=interval), [], []
        for factor in (1.0, float("inf"), 1.0, 1.0, float("nan"), float("inf"), 1.0):
            scaler.scale((parameter * factor).sum()).backward()
            before, steps = scaler.get_scale(), len(taken)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            skipped.append(len(taken) == steps)
            fell.append(scaler.get_scale() < before)
        assert skipped == fell == [False, True, False, False, True, True, False], (interval, skipped, fell)

    first, second = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
    optimizers = torch.optim.SGD([first], lr=0.1), torch.optim.SGD([second], lr=0.1)
    taken = []
    for name, optimizer in zip("ab", optimizers):
        optimizer.register_step_post_hook(lambda optimizer, args, kwargs, name=name: taken.append(name))
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(first.sum() + (second * float("inf")).sum()).backward()
    for optimizer in optimizers:
        scaler.step(optimizer)
    scaler.update()
    assert taken == ["a"] and scaler.get_scale() == 32768.0, (taken, scaler.get_scale())


def _scaled_step(scaler, optimizer, parameters, unscale_first):
    """scaler.step then scaler.update; with unscale_first, first scaler.unscale_ and clip_grad_norm_ (with a
    max_norm above the clean gradients' norms here, so only an inf or NaN gradient is changed, to NaN), as
    the chapter's loop does."""
    if unscale_first:
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(parameters, 10.0)
    scaler.step(optimizer)
    scaler.update()


def scaler_step_skips_a_non_fused_optimizer_entirely():
    """For SGD (with and without momentum, with and without foreach), Adam and AdamW made without
    fused=True, scaler.step does not call optimizer.step() when a gradient holds inf or NaN: neither the
    parameters nor the optimizer's state (momentum buffer; Adam's moments and step count) change, whether
    the skipped step is the first one (the state stays empty) or comes after a step taken; with or without
    scaler.unscale_ and clip_grad_norm_ before scaler.step."""
    makers = {"SGD": lambda p: torch.optim.SGD(p, lr=0.1),
              "SGD momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
              "SGD momentum foreach": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, foreach=True),
              "Adam": lambda p: torch.optim.Adam(p, lr=0.1), "AdamW": lambda p: torch.optim.AdamW(p, lr=0.1)}
    for (name, make), unscale_first in itertools.product(makers.items(), (False, True)):
        torch.manual_seed(0)
        parameter = nn.Parameter(torch.randn(4))
        optimizer = make([parameter])
        called = []
        optimizer.register_step_pre_hook(lambda optimizer, args, kwargs: called.append(1))
        scaler, found = torch.amp.GradScaler("cpu"), []
        for factor in (float("inf"), 1.0, float("nan"), 1.0):
            before = parameter.detach().clone()
            state = {key: value.clone() if torch.is_tensor(value) else value
                     for key, value in optimizer.state[parameter].items()}
            calls = len(called)
            scaler.scale((parameter * factor * torch.arange(1.0, 5.0)).sum()).backward()
            _scaled_step(scaler, optimizer, [parameter], unscale_first)
            optimizer.zero_grad()
            after = optimizer.state[parameter]
            unchanged = torch.equal(parameter, before) and after.keys() == state.keys() and all(
                torch.equal(torch.as_tensor(after[key]), torch.as_tensor(state[key])) for key in state)
            found.append((len(called) - calls, unchanged))
        # inf: not called, nothing changed; clean: called, parameters and state changed
        assert found == [(0, True), (1, False), (0, True), (1, False)], (name, unscale_first, found)


def a_fused_optimizer_is_stepped_but_does_not_move_on_inf():
    """For Adam and AdamW made with fused=True, scaler.step calls optimizer.step() (its step pre- and
    post-hooks run) also when a gradient holds inf, and that step leaves the parameters, the moments
    (exp_avg, exp_avg_sq) and the step count unchanged, while update() halves the scale: for a skipped
    first step (which creates the moments and the step count at zero, also with torch filling new memory
    with NaN) and for one after a step taken; with or without scaler.unscale_ and clip_grad_norm_ before
    scaler.step. A StepLR stepped after a skipped first step does not warn."""
    deterministic = torch.are_deterministic_algorithms_enabled(), torch.utils.deterministic.fill_uninitialized_memory
    try:
        torch.use_deterministic_algorithms(True)
        torch.utils.deterministic.fill_uninitialized_memory = True
        for make, unscale_first in itertools.product((torch.optim.Adam, torch.optim.AdamW), (False, True)):
            parameter = nn.Parameter(torch.ones(4))
            optimizer = make([parameter], lr=0.1, fused=True)
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
            called = []
            optimizer.register_step_pre_hook(lambda optimizer, args, kwargs: called.append("pre"))
            optimizer.register_step_post_hook(lambda optimizer, args, kwargs: called.append("post"))
            scaler, found, warned = torch.amp.GradScaler("cpu"), [], []
            for factor in (float("inf"), 1.0, float("inf")):
                before, scale, calls = parameter.detach().clone(), scaler.get_scale(), len(called)
                state = optimizer.state[parameter]
                moments = [state.get(key, torch.zeros(4)).clone() for key in ("exp_avg", "exp_avg_sq")]
                scaler.scale((parameter * factor).sum()).backward()
                _scaled_step(scaler, optimizer, [parameter], unscale_first)
                optimizer.zero_grad()
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    scheduler.step()
                warned.append(any("before `optimizer.step()`" in str(w.message) for w in caught))
                state = optimizer.state[parameter]
                moments_kept = all(torch.equal(state[key], moment)
                                   for key, moment in zip(("exp_avg", "exp_avg_sq"), moments))
                found.append((called[calls:], not torch.equal(parameter, before), not moments_kept,
                              int(state["step"]), scaler.get_scale() / scale))
            # inf: called, not moved, moments kept (zero at first), step count kept, scale halved;
            # clean: called, moved, moments changed, counted, scale kept
            hooks = ["pre", "post"]
            assert found == [(hooks, False, False, 0, 0.5), (hooks, True, True, 1, 1.0),
                             (hooks, False, False, 1, 0.5)], (make.__name__, unscale_first, found)
            assert warned == [False, False, False], (make.__name__, unscale_first, warned)
    finally:
        torch.use_deterministic_algorithms(deterministic[0])
        torch.utils.deterministic.fill_uninitialized_memory = deterministic[1]


def a_fused_sgd_skipping_its_first_step_leaves_its_momentum_unwritten():
    """An SGD with momentum made with fused=True is stepped by scaler.step on inf too (its step pre-hook runs)
    and leaves the parameters, and a momentum buffer it already has, as they were. When the skipped step is
    its first, that step creates the momentum buffer without writing to it: with torch filling new memory
    with NaN, the buffer is NaN after it, and the next clean step, which takes the buffer as the previous
    momentum (a value written into it shows in that step), makes the parameters NaN. Made without
    fused=True, the same SGD keeps no buffer after the skip and its next step is finite. All with or without
    scaler.unscale_ and clip_grad_norm_ before scaler.step."""
    def skip_then_step(fused, write=None, taken_first=False, unscale_first=False):
        parameter = nn.Parameter(torch.ones(4))
        optimizer = torch.optim.SGD([parameter], lr=0.1, momentum=0.9, fused=fused)
        called = []
        optimizer.register_step_pre_hook(lambda optimizer, args, kwargs: called.append(1))
        scaler = torch.amp.GradScaler("cpu")
        for factor in ((1.0,) if taken_first else ()) + (float("inf"),):
            before = parameter.detach().clone()
            buffer = optimizer.state[parameter].get("momentum_buffer")
            buffer = None if buffer is None else buffer.clone()
            scaler.scale((parameter * factor).sum()).backward()
            _scaled_step(scaler, optimizer, [parameter], unscale_first)
            optimizer.zero_grad()
        after_skip = optimizer.state[parameter].get("momentum_buffer")
        skipped = (len(called), torch.equal(parameter, before),
                   buffer is None or torch.equal(after_skip, buffer), None if after_skip is None else after_skip.clone())
        if write is not None:
            after_skip.fill_(write)
        scaler.scale(parameter.sum()).backward()  # a clean step, gradient 1 everywhere
        _scaled_step(scaler, optimizer, [parameter], unscale_first)
        return skipped, parameter.detach()

    for unscale_first in (False, True):
        (calls, kept, buffer_kept, _), _ = skip_then_step(True, taken_first=True, unscale_first=unscale_first)
        assert (calls, kept, buffer_kept) == (2, True, True), (unscale_first, calls, kept, buffer_kept)
        deterministic = torch.are_deterministic_algorithms_enabled(), torch.utils.deterministic.fill_uninitialized_memory
        try:
            torch.use_deterministic_algorithms(True)
            torch.utils.deterministic.fill_uninitialized_memory = True
            (calls, kept, _, buffer), stepped = skip_then_step(True, unscale_first=unscale_first)
            assert calls == 1 and kept and buffer is not None and buffer.isnan().all(), (unscale_first, calls, kept, buffer)
            assert stepped.isnan().all(), (unscale_first, stepped)
            (calls, kept, _, buffer), stepped = skip_then_step(False, unscale_first=unscale_first)
            assert calls == 0 and kept and buffer is None and torch.isfinite(stepped).all(), (
                unscale_first, calls, kept, buffer, stepped)
        finally:
            torch.use_deterministic_algorithms(deterministic[0])
            torch.utils.deterministic.fill_uninitialized_memory = deterministic[1]
        # previous momentum 100: p = 1 - 0.1 * (0.9 * 100 + 1)
        _, stepped = skip_then_step(True, write=100.0, unscale_first=unscale_first)
        assert torch.allclose(stepped, torch.full((4,), 1 - 0.1 * (0.9 * 100 + 1))), (unscale_first, stepped)


def the_scheduler_warns_only_at_its_first_step():
    """A learning-rate scheduler such as StepLR (or LambdaLR) checks whether optimizer.step() has run only
    at its own first step(): with GradScaler skipping steps 1 and 2, scheduler.step() warns after step 1
    and not after step 2, although optimizer.step() has still not run."""
    for make in (lambda optimizer: torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5),
                 lambda optimizer: torch.optim.lr_scheduler.LambdaLR(optimizer, lambda epoch: 0.5 ** epoch)):
        parameter = nn.Parameter(torch.ones(2))
        optimizer = torch.optim.SGD([parameter], lr=0.1)
        scheduler = make(optimizer)
        scaler, taken, warned = torch.amp.GradScaler("cpu"), [], []
        optimizer.register_step_post_hook(lambda optimizer, args, kwargs: taken.append(1))
        for factor in (float("inf"), float("inf"), 1.0):
            scaler.scale((parameter * factor).sum()).backward()
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                scheduler.step()
            warned.append(any("before `optimizer.step()`" in str(w.message) for w in caught))
        assert len(taken) == 1 and warned == [True, False, False], (type(scheduler).__name__, taken, warned)


def reduce_lr_on_plateau_does_not_check_optimizer_step():
    """ReduceLROnPlateau does not check whether optimizer.step() has run: with GradScaler skipping
    steps 1 and 2, scheduler.step(metric) warns at none of them (a StepLR warns at step 1, see
    the_scheduler_warns_only_at_its_first_step, so the warning is not filtered away here)."""
    parameter = nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([parameter], lr=0.1)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    scaler, taken, caught_all = torch.amp.GradScaler("cpu"), [], []
    optimizer.register_step_post_hook(lambda optimizer, args, kwargs: taken.append(1))
    for factor in (float("inf"), float("inf")):
        scaler.scale((parameter * factor).sum()).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scheduler.step(1.0)
        caught_all += [str(w.message) for w in caught]
    assert not taken and not any("optimizer.step()" in message for message in caught_all), (taken, caught_all)


def unscale_twice_before_update_raises():
    """Calling scaler.unscale_(optimizer) a second time before update() raises a RuntimeError."""
    parameter = nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([parameter], lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    scaler.scale(parameter.sum()).backward()
    scaler.unscale_(optimizer)
    with contextlib.suppress(RuntimeError):
        scaler.unscale_(optimizer)
        raise AssertionError("the second unscale_ did not raise")


def grad_scaler_refuses_float16_parameters():
    """With a model cast to float16 (model.half()) its gradients are float16: scaler.unscale_ refuses them
    with a ValueError, and so does scaler.step for an optimizer made without fused=True (tried: SGD, Adam,
    and AdamW with foreach=True), because it unscales them itself. An SGD, Adam or AdamW made with fused=True, stepped through scaler.step without unscale_, takes
    them without an error and moves (the fused SGD as the unscaled gradient would)."""
    def half_model_with_scaled_gradient(scaler):
        torch.manual_seed(0)
        model = nn.Linear(4, 1).half()
        scaler.scale(model(torch.randn(2, 4, dtype=torch.float16)).float().sum()).backward()
        assert model.weight.grad.dtype == torch.float16
        return model

    unfused = (lambda ps: torch.optim.SGD(ps, lr=0.1), lambda ps: torch.optim.Adam(ps, lr=0.1),
               lambda ps: torch.optim.AdamW(ps, lr=0.1, foreach=True))
    for step, make in [(False, unfused[0])] + [(True, make) for make in unfused]:
        scaler = torch.amp.GradScaler("cpu")
        model = half_model_with_scaled_gradient(scaler)
        optimizer = make(model.parameters())
        try:
            scaler.step(optimizer) if step else scaler.unscale_(optimizer)
        except ValueError as error:
            assert "unscale FP16" in str(error), error
        else:
            raise AssertionError(f"{'step' if step else 'unscale_'} accepted float16 gradients ({optimizer})")

    for make in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
        scaler = torch.amp.GradScaler("cpu", init_scale=16.0)  # small enough not to overflow float16 here
        model = half_model_with_scaled_gradient(scaler)
        optimizer = make(model.parameters(), lr=0.1, fused=True)
        before = model.weight.detach().clone()
        unscaled_step = before.float() - 0.1 * model.weight.grad.float() / 16.0
        scaler.step(optimizer)
        scaler.update()
        assert not torch.equal(model.weight, before), make.__name__
        if make is torch.optim.SGD:  # float16 spacing near these weights is below 1e-3; the scaled step is 16x
            assert torch.allclose(model.weight.float(), unscaled_step, rtol=0, atol=1e-3), (model.weight, unscaled_step)


def clip_grad_norm_after_an_overflow_returns_inf_or_nan_and_leaves_nan():
    """In the chapter's loop (float16 autocast, scaled micro-batch losses, unscale_, then clip_grad_norm_), on
    an accumulated batch one of whose micro-batches overflows float16: clip_grad_norm_ returns a norm that
    is inf or NaN and leaves NaN in .grad; scaler.step does not call optimizer.step(), so no parameter moves,
    and zero_grad() leaves no .grad. With error_if_nonfinite=True clip_grad_norm_ raises there instead, and
    not on the same batch without the overflow."""

    def accumulated(factor, **clip):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        taken = []
        optimizer.register_step_post_hook(lambda optimizer, args, kwargs: taken.append(1))
        scaler = torch.amp.GradScaler("cpu")
        x, y = torch.randn(64, 16), torch.randn(64, 1)
        x[16:32] *= factor  # micro-batch 2
        before = [p.detach().clone() for p in model.parameters()]
        for xb, yb in zip(x.chunk(4), y.chunk(4)):
            with torch.autocast("cpu", dtype=torch.float16):
                loss = nn.functional.mse_loss(model(xb), yb)
            scaler.scale(loss / 4).backward()
        scaler.unscale_(optimizer)
        norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0, **clip).item()
        nan_left = any(p.grad.isnan().any().item() for p in model.parameters())
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        moved = any(not torch.equal(p, q) for p, q in zip(model.parameters(), before))
        return norm, nan_left, len(taken), moved, all(p.grad is None for p in model.parameters())

    norms = []
    for factor in (10.0, 100.0):  # inputs 10 times too large overflow some gradient entries, 100 times all
        norm, nan_left, taken, moved, cleared = accumulated(factor)
        assert nan_left and (taken, moved, cleared) == (0, False, True), (factor, nan_left, taken, moved, cleared)
        norms.append(norm)
        try:
            accumulated(factor, error_if_nonfinite=True)
        except RuntimeError as error:
            assert "non-finite" in str(error), error
        else:
            raise AssertionError(f"clip_grad_norm_(error_if_nonfinite=True) did not raise with inputs x {factor}")
    assert not any(map(math.isfinite, norms)), norms
    norm, nan_left, taken, moved, _ = accumulated(1.0)  # the same batch, no overflow
    assert math.isfinite(norm) and not nan_left and (taken, moved) == (1, True), (norm, nan_left, taken, moved)
    accumulated(1.0, error_if_nonfinite=True)


def clip_grad_norm_returns_the_norm_it_measured_before_clipping():
    """clip_grad_norm_ returns the total norm of the gradients as it found them, not the clipped norm."""
    parameter = nn.Parameter(torch.zeros(2))
    parameter.grad = torch.tensor([3.0, 4.0])
    assert nn.utils.clip_grad_norm_([parameter], 1.0).item() == 5.0
    assert abs(parameter.grad.norm().item() - 1.0) < 1e-5


def _listening(pids):
    """(address, port) of every listening TCP socket the processes `pids` hold."""
    inodes = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    inodes.add(os.readlink(f"/proc/{pid}/fd/{fd}").removeprefix("socket:[").rstrip("]"))
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            for row in list(rows)[1:]:
                fields = row.split()
                if fields[3] == "0A" and fields[9] in inodes:
                    raw = bytes.fromhex(fields[1].split(":")[0])
                    packed = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
                    family = socket.AF_INET if len(raw) == 4 else socket.AF_INET6
                    found.append((socket.inet_ntop(family, packed), int(fields[1].split(":")[1], 16)))
    return found


# DDP models of the workers, never freed: freeing one right after its last all-reduce can deadlock
# against gloo's own thread, which may still be releasing that all-reduce (seen on torch 2.13)
_ALIVE = []


def _stop(workers):
    for process in workers:
        if process.is_alive():
            process.terminate()
            process.join(30)
        if process.is_alive():
            process.kill()
            process.join()


# The two DDP claims below repeat their few lines of setup on purpose: a claim's popover shows the check
# with every helper it calls (conf/book_extensions/claims.py), so shared setup helpers would lengthen
# both popovers and make a reader follow them to see the workers start and stop.
def _ddp_worker(rank, store_path, ready, inspected):
    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=30))
    try:
        model = nn.parallel.DistributedDataParallel(nn.Linear(4, 1))
        _ALIVE.append(model)
        model(torch.randn(3, 4)).sum().backward()  # one all-reduce: every connection is made
        ready.put(rank)
        inspected.wait(30)
    finally:
        dist.destroy_process_group()


def ddp_workers_listen_only_on_loopback():
    """Two DDP workers on gloo, meeting through a FileStore with GLOO_SOCKET_IFNAME=lo, hold listening
    TCP sockets (in /proc/net/tcp and tcp6) during a run, and every one of them is on 127.0.0.1."""
    import torch._dynamo  # noqa: F401  DDP() imports it: once here, not in each worker
    context = mp.get_context("fork")
    ready, inspected = context.Queue(), context.Event()
    folder = tempfile.mkdtemp()
    workers = [context.Process(target=_ddp_worker, daemon=True,
                               args=(rank, os.path.join(folder, "store"), ready, inspected)) for rank in range(2)]
    try:
        for process in workers:
            process.start()
        for _ in workers:
            ready.get(timeout=30)
        addresses = [address for address, _ in _listening([process.pid for process in workers])]
        inspected.set()
        for process in workers:
            process.join(30)
        assert [process.exitcode for process in workers] == [0, 0]
    finally:
        inspected.set()
        _stop(workers)
        shutil.rmtree(folder, ignore_errors=True)
    assert addresses and set(addresses) == {"127.0.0.1"}, addresses


def tcp_init_method_listens_on_every_interface():
    """init_process_group("gloo", init_method="tcp://127.0.0.1:<port>") makes rank 0's process listen on
    <port> at a wildcard address (:: or 0.0.0.0), not at 127.0.0.1, even with GLOO_SOCKET_IFNAME=lo;
    with the store's libuv server (the default) and with the older one (?use_libuv=0)."""
    saved = os.environ.get("GLOO_SOCKET_IFNAME")
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    try:
        for query in ("", "?use_libuv=0"):
            with socket.socket() as probe:  # a port that is free now
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}{query}", rank=0, world_size=1,
                                    timeout=datetime.timedelta(seconds=30))
            try:
                on_port = {address for address, bound in _listening([os.getpid()]) if bound == port}
            finally:
                dist.destroy_process_group()
            assert on_port and on_port <= {"::", "0.0.0.0"}, (query, on_port)
    finally:
        if saved is None:
            os.environ.pop("GLOO_SOCKET_IFNAME")
        else:
            os.environ["GLOO_SOCKET_IFNAME"] = saved


def ddp_default_hook_is_an_average():
    """Without a comm hook, DDP leaves each parameter the average of the ranks' gradients: two ranks
    with gradients 1 and 3 both end with 2. The counting hook of the snippet ddp-no-sync.py (copied in
    the worker) does the same, and is called once."""
    import torch._dynamo  # noqa: F401  DDP() imports it: once here, not in each worker
    context = mp.get_context("fork")
    found = {}
    for with_hook in (False, True):
        results = context.Queue()
        folder = tempfile.mkdtemp()
        workers = [context.Process(target=_averaging_worker, daemon=True,
                                   args=(rank, os.path.join(folder, "store"), with_hook, results)) for rank in range(2)]
        try:
            for process in workers:
                process.start()
            found[with_hook] = sorted(results.get(timeout=30) for _ in workers)
            for process in workers:
                process.join(30)
        finally:
            _stop(workers)
            shutil.rmtree(folder, ignore_errors=True)
    # per rank: (rank, weight.grad, calls of the counting hook)
    assert found == {False: [(0, 2.0, 0), (1, 2.0, 0)], True: [(0, 2.0, 1), (1, 2.0, 1)]}, found


def _averaging_worker(rank, store_path, with_hook, results):
    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=30))
    try:
        layer = nn.Linear(1, 1, bias=False)
        model = nn.parallel.DistributedDataParallel(layer)
        _ALIVE.append(model)
        buckets = []

        def counting_allreduce(state, bucket):  # as in ddp-no-sync.py, with WORLD = 2
            buckets.append(bucket.index())
            averaged = bucket.buffer().div_(2)
            return dist.all_reduce(averaged, async_op=True).get_future().then(
                lambda fut: fut.value()[0])

        if with_hook:
            model.register_comm_hook(None, counting_allreduce)
        model(torch.tensor([[1.0 + 2 * rank]])).sum().backward()  # gradient 1 on rank 0, 3 on rank 1
        results.put((rank, layer.weight.grad.item(), len(buckets)))
    finally:
        dist.destroy_process_group()


def ddp_decides_at_the_forward_whether_backward_all_reduces():
    """Two gloo ranks, DDP with a comm hook that counts its calls: a backward whose forward ran inside
    no_sync() makes no all-reduce although backward() is called outside it, and a backward whose forward
    ran outside no_sync() makes one although backward() is called inside it. It is the latest forward
    that decides: with a forward inside no_sync() and then one outside it before either backward, the
    first graph's backward makes the one all-reduce and the second's none, nothing raises, and the two
    ranks (each with its own inputs) end with different .grad."""
    import torch._dynamo  # noqa: F401  DDP() imports it: once here, not in each worker
    context = mp.get_context("fork")
    results = context.Queue()
    folder = tempfile.mkdtemp()
    workers = [context.Process(target=_forward_decides_worker, daemon=True,
                               args=(rank, os.path.join(folder, "store"), results)) for rank in range(2)]
    try:
        for process in workers:
            process.start()
        found = sorted(results.get(timeout=30) for _ in workers)
        for process in workers:
            process.join(30)
    finally:
        _stop(workers)
        shutil.rmtree(folder, ignore_errors=True)
    # per rank: all-reduces of the two forward-backward pairs, then of the two backward passes that follow
    # two forwards (inside no_sync(), then outside), and the .grad the latter leave
    assert [counts for counts, _ in found] == [(0, 0, 1, 1, 0), (1, 0, 1, 1, 0)], found
    assert found[0][1] != found[1][1], found


def _forward_decides_worker(rank, store_path, results):
    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=30))
    try:
        model = nn.parallel.DistributedDataParallel(nn.Linear(4, 1))
        _ALIVE.append(model)
        calls = []

        def counting_allreduce(state, bucket):
            calls.append(bucket.index())
            return dist.all_reduce(bucket.buffer().div_(2), async_op=True).get_future().then(
                lambda fut: fut.value()[0])

        model.register_comm_hook(None, counting_allreduce)
        with model.no_sync():  # forward inside, backward outside
            loss = model(torch.randn(3, 4)).sum()
        loss.backward()
        forward_inside = len(calls)
        loss = model(torch.randn(3, 4)).sum()  # forward outside, backward inside
        with model.no_sync():
            loss.backward()
        forward_outside = len(calls) - forward_inside
        model.zero_grad()
        torch.manual_seed(rank)  # each rank its own inputs, as in training
        with model.no_sync():
            loss_inside = model(torch.randn(3, 4)).sum()
        loss_outside = model(torch.randn(3, 4)).sum()
        before = len(calls)
        loss_inside.backward()
        first = len(calls) - before
        loss_outside.backward()
        second = len(calls) - before - first
        results.put(((rank, forward_inside, forward_outside, first, second), model.module.weight.grad.tolist()))
    finally:
        dist.destroy_process_group()


def an_overflow_in_one_ddp_process_skips_the_step_in_every_process():
    """Two gloo ranks, DDP under float16 autocast with a GradScaler each, two micro-batches per step, the
    first one's forward inside no_sync(): when only rank 1's first micro-batch overflows, rank 0's .grad is
    still finite after that micro-batch and holds inf or NaN after the second one's all-reduce, and both
    ranks' scaler.step skip the step and halve the scale; with clean inputs both take it."""
    import torch._dynamo  # noqa: F401  DDP() imports it: once here, not in each worker
    context = mp.get_context("fork")
    results = context.Queue()
    folder = tempfile.mkdtemp()
    workers = [context.Process(target=_scaler_worker, daemon=True,
                               args=(rank, os.path.join(folder, "store"), results)) for rank in range(2)]
    try:
        for process in workers:
            process.start()
        found = sorted(results.get(timeout=30) for _ in workers)
        for process in workers:
            process.join(30)
    finally:
        _stop(workers)
        shutil.rmtree(folder, ignore_errors=True)
    # per rank and step: (.grad non-finite after micro-batch 1, after micro-batch 2, steps taken, scale after),
    # the clean step first, then the one whose first micro-batch rank 1 spoils
    assert found == [(0, (False, False, 1, 65536.0), (False, True, 0, 32768.0)),
                     (1, (False, False, 1, 65536.0), (True, True, 0, 32768.0))], found


def _scaler_worker(rank, store_path, results):
    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=30))
    try:
        torch.manual_seed(0)
        model = nn.parallel.DistributedDataParallel(nn.Linear(4, 1))
        _ALIVE.append(model)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        taken = []
        optimizer.register_step_post_hook(lambda optimizer, args, kwargs: taken.append(1))
        scaler, outcome = torch.amp.GradScaler("cpu"), [rank]
        for spoil in (False, rank == 1):
            steps, non_finite = len(taken), []
            for micro_batch in (1, 2):
                x = torch.randn(8, 4) / 10 * (1e5 if spoil and micro_batch == 1 else 1.0)
                with model.no_sync() if micro_batch == 1 else contextlib.nullcontext():
                    with torch.autocast("cpu", dtype=torch.float16):
                        loss = nn.functional.mse_loss(model(x), torch.zeros(8, 1))
                scaler.scale(loss / 2).backward()
                non_finite.append(any(not p.grad.isfinite().all() for p in model.parameters()))
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            outcome.append((*non_finite, len(taken) - steps, scaler.get_scale()))
        results.put(tuple(outcome))
    finally:
        dist.destroy_process_group()


def gloo_process_group_timeout_is_30_minutes_by_default():
    """A gloo process group made without a timeout argument gets 30 minutes, torch.distributed's default,
    as its own timeout; made with timeout=2 s, it has 2 s, and that bounds both the meeting (a rank whose
    partner never comes raises within seconds) and an all-reduce (one the other rank never joins raises
    within seconds). It does not show how long the meeting waits without a timeout argument (a store passed
    in has a timeout of its own): the prose says only what the group's timeout is."""
    import time

    from torch.distributed import distributed_c10d

    assert dist.default_pg_timeout == datetime.timedelta(minutes=30)
    assert distributed_c10d._get_default_timeout(dist.Backend.GLOO) == datetime.timedelta(minutes=30)
    folder = tempfile.mkdtemp()
    try:
        dist.init_process_group("gloo", store=dist.FileStore(os.path.join(folder, "alone"), 1), rank=0, world_size=1)
        try:
            timeout = dist.group.WORLD._get_backend(torch.device("cpu")).options._timeout
            assert timeout == datetime.timedelta(minutes=30), timeout
        finally:
            dist.destroy_process_group()
        started = time.monotonic()
        with contextlib.suppress(RuntimeError):  # world_size 2, and rank 1 never comes
            dist.init_process_group("gloo", store=dist.FileStore(os.path.join(folder, "meeting"), 2), rank=0,
                                    world_size=2, timeout=datetime.timedelta(seconds=2))
            raise AssertionError("the meeting without its second rank did not raise")
        waited_to_meet = time.monotonic() - started
        context = mp.get_context("fork")
        results = context.Queue()
        workers = [context.Process(target=_timeout_worker, daemon=True,
                                   args=(rank, os.path.join(folder, "store"), results)) for rank in range(2)]
        try:
            for process in workers:
                process.start()
            found = sorted(results.get(timeout=30) for _ in workers)
        finally:
            _stop(workers)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert waited_to_meet < 10, waited_to_meet
    # per rank: (rank, the group's timeout in seconds, seconds until rank 0's lone all-reduce raised)
    assert [found[0][:2], found[1]] == [(0, 2.0), (1, 2.0, None)] and found[0][2] < 10, found


def _timeout_worker(rank, store_path, results):
    import time

    torch.set_num_threads(1)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group("gloo", store=dist.FileStore(store_path, 2), rank=rank, world_size=2,
                            timeout=datetime.timedelta(seconds=2))
    timeout = dist.group.WORLD._get_backend(torch.device("cpu")).options._timeout.total_seconds()
    waited = None
    try:
        if rank == 0:  # rank 1 never joins this all-reduce
            started = time.monotonic()
            with contextlib.suppress(RuntimeError):
                dist.all_reduce(torch.ones(1))
                raise AssertionError("the lone all-reduce did not raise")
            waited = time.monotonic() - started
        results.put((rank, timeout, waited))
        if rank == 1:
            time.sleep(15)  # stays in the group, never joins: rank 0 waits on it, not on a closed connection
    finally:
        dist.destroy_process_group()
