"""Exercises of the chapter accumulation-at-scale."""

import contextlib
import copy

import torch
from torch import nn

from exercise_judge.checking import Fail, exercise, times
from exercise_judge.spies import autograd_passes, counted

MICRO_BATCHES, ROWS, LR = 4, 16, 0.1
SCALE = 65536.0  # the scale a fresh GradScaler("cpu") starts at
OTHER_MICRO_BATCHES = 3  # a second count, so that a number of micro-batches written out fails
OTHER_SCALE = 1024.0  # the second run's scaler starts here, so that a scale written out fails


class RecordingScaler(torch.amp.GradScaler):
    """A GradScaler("cpu") starting at `init_scale` that writes down every call the solution makes, the
    gradients' total norm each time unscale_ starts (so that a clip before it shows), whether unscale_
    found an inf or NaN, for each tensor scale() returned, the backward passes (numbered from 1 in
    `passes`) that reached it, for each call of step, whether it was handed `optimizer`, the
    solution's own, and for each call of update, the new_scale it was given."""

    def __init__(self, passes, optimizer, init_scale=SCALE):
        super().__init__("cpu", init_scale=init_scale)
        self.calls, self.norms_at_unscale, self.found_non_finite, self._in_step = [], [], False, False
        self.passes, self.reached, self.optimizer, self.stepped_own = passes, [], optimizer, []
        self.new_scales = []

    def scale(self, outputs):
        self.calls.append("scale")
        scaled = super().scale(outputs)
        reached = []
        self.reached.append(reached)
        if isinstance(scaled, torch.Tensor) and scaled.requires_grad:
            scaled.register_hook(lambda grad: reached.append(len(self.passes)))
        return scaled

    def unscale_(self, optimizer):
        grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        if not self._in_step:
            self.calls.append("unscale_")
            self.norms_at_unscale.append(torch.cat([g.flatten() for g in grads]).norm().item() if grads else 0.0)
        self.found_non_finite |= any(not torch.isfinite(g).all() for g in grads)
        return super().unscale_(optimizer)

    def step(self, optimizer, *args, **kwargs):
        self.calls.append("step")
        self.stepped_own.append(optimizer is self.optimizer)
        self._in_step = True
        try:
            return super().step(optimizer, *args, **kwargs)
        finally:
            self._in_step = False

    def update(self, new_scale=None):
        self.calls.append("update")
        self.new_scales.append(new_scale)
        return super().update(new_scale)


class Run:
    """What one call of accumulated_step did: the parameters' change, the scaler, the rows of each
    forward of the model, (name, dtype) for every output of any of its Linear layers, the backward
    passes by the reader's file, the gradient that reached each loss loss_fn returned (the factor the
    backward multiplied that loss by), for each optimizer.step(), whether it ran inside scaler.step,
    for each forward, how many backward passes had run before it, and each call of clip_grad_norm_
    (see _watched_clip)."""

    def __init__(self, change, scaler, rows, dtypes, passes, arrived, inside_step, before, clips):
        self.change, self.scaler, self.rows, self.dtypes, self.passes = change, scaler, rows, dtypes, passes
        self.arrived, self.inside_step, self.before, self.clips = arrived, inside_step, before, clips

    def order(self):
        """'forward, backward(), forward, ...': the order in which the forward calls and the passes ran."""
        events, done = [], 0
        for before in self.before:
            events += ["backward()"] * (before - done) + ["forward"]
            done = before
        return ", ".join(events + ["backward()"] * (len(self.passes) - done))


def _setup(seed, micro_batches=MICRO_BATCHES):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    x, y = torch.randn(micro_batches * ROWS, 8), torch.randn(micro_batches * ROWS, 1)
    return model, x, y


def _flat(model):
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def _reference_update(model, x, y, max_norm):
    """One float32 step on the whole batch: the change of the parameters, and the gradient norm."""
    model = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    before = _flat(model)
    nn.functional.mse_loss(model(x), y).backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm).item()
    optimizer.step()
    return _flat(model) - before, norm


def _float16_update(model, x, y, micro_batches=MICRO_BATCHES, init_scale=SCALE):
    """The change of the parameters that the method makes, unwatched: float16 forward calls, scaled backward
    passes, unscale_, step (no clipping)."""
    model = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    scaler = torch.amp.GradScaler("cpu", init_scale=init_scale)
    before = _flat(model)
    for part_x, part_y in zip(x.chunk(micro_batches), y.chunk(micro_batches)):
        with torch.autocast("cpu", dtype=torch.float16):
            loss = nn.functional.mse_loss(model(part_x), part_y)
        scaler.scale(loss / micro_batches).backward()
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
    return _flat(model) - before


@contextlib.contextmanager
def _watched_clip(solution, clips, scaler_calls):
    """Replace clip_grad_norm_ wherever torch or the reader's module holds it by one that runs it and
    writes down (how many scaler calls came before, the max_norm it was given, the norm it returned)."""
    original = nn.utils.clip_grad_norm_

    def watched(parameters, max_norm, *args, **kwargs):
        norm = original(parameters, max_norm, *args, **kwargs)
        clips.append((len(scaler_calls()), float(max_norm), float(norm)))
        return norm

    replaced = []
    for owner in (nn.utils, nn.utils.clip_grad, solution):
        for attribute, value in list(vars(owner).items()):
            if value is original:
                replaced.append((owner, attribute))
                setattr(owner, attribute, watched)
    try:
        yield
    finally:
        for owner, attribute in reversed(replaced):
            setattr(owner, attribute, original)


def _run(solution, model, x, y, max_norm, micro_batches=MICRO_BATCHES, init_scale=SCALE):
    model = copy.deepcopy(model)
    rows, dtypes, before, counted_passes = [], [], [], []
    model.register_forward_pre_hook(lambda module, args: rows.append(len(args[0]) if args else 0))
    model.register_forward_pre_hook(lambda module, args: before.append(len(counted_passes[0]) if counted_passes else 0))
    for name, module in model.named_modules():
        if isinstance(module, nn.Linear):  # every one: autocast around part of the forward shows
            module.register_forward_hook(lambda module, args, output, name=name: dtypes.append((name, output.dtype)))
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    inside_step, arrived = [], []
    optimizer.register_step_pre_hook(lambda optimizer, args, kwargs: inside_step.append(scaler._in_step))

    def loss_fn(prediction, target):
        loss = nn.functional.mse_loss(prediction, target)
        if loss.requires_grad:
            loss.register_hook(lambda grad: arrived.append(grad.float().mean().item()))
        return loss

    start = _flat(model)
    parts = list(zip(x.chunk(micro_batches), y.chunk(micro_batches)))
    clips = []
    with autograd_passes() as passes, _watched_clip(solution, clips, lambda: scaler.calls):
        counted_passes.append(passes)
        scaler = RecordingScaler(passes, optimizer, init_scale)
        solution.accumulated_step(model, loss_fn, optimizer, scaler, parts, max_norm)
    return Run(
        _flat(model) - start,
        scaler,
        rows,
        dtypes,
        [found for found in passes if found.by(solution.__file__)],
        arrived,
        inside_step,
        before,
        clips,
    )


def _backward_calls(run):
    """How many of the passes by the reader's file were backward() (torch.autograd.grad leaves .grad alone)."""
    return sum(found.kind == "backward()" for found in run.passes)


def _calls(scaler):
    return ", ".join(scaler.calls) or "none"


def _compare(found, expected, micro_batches):
    """Fail unless the step `found` is the float32 one-batch step `expected` (relative difference 2e-2)."""
    error = ((found - expected).norm() / expected.norm()).item()
    ratio = (found.norm() / expected.norm()).item()
    if error <= 2e-2:
        return
    if abs(ratio - micro_batches) < 0.1:
        hint = (
            f"each micro-batch loss is a mean; {micro_batches} of them added count the batch "
            f"{micro_batches} times: divide each loss by len(micro_batches) before scaling",
            f"每个微批次的损失是平均值，{micro_batches} 个加起来等于把整批算了 {micro_batches} 遍："
            f"放大前每个损失先除以 len(micro_batches)",
        )
    elif ratio == 0:
        hint = (
            "the parameters did not move: did scaler.step find an inf, or was the optimizer never stepped?",
            "参数没有动：是 scaler.step 发现了 inf，还是根本没有更新？",
        )
    elif micro_batches != MICRO_BATCHES and abs(ratio - micro_batches / MICRO_BATCHES) < 0.05:
        hint = (
            f"the step is {micro_batches}/{MICRO_BATCHES} of the right one: is the number of micro-batches "
            f"written out? Divide by len(micro_batches)",
            f"更新量是正确值的 {micro_batches}/{MICRO_BATCHES}：是不是把微批次数写死了？要除以 len(micro_batches)",
        )
    else:
        hint = (
            "scale every micro-batch loss divided by len(micro_batches), unscale_ once, then step",
            "每个微批次的损失除以 len(micro_batches) 再放大，unscale_ 一次，然后 step",
        )
    raise Fail(
        f"with {micro_batches} micro-batches the parameters moved differently from one float32 step on the whole batch",
        f"{micro_batches} 个微批次时，参数的变化和整批一次 float32 更新不同",
        expected=("the one-batch step (relative difference below 2e-2)", "整批一次更新（相对差异小于 2e-2）"),
        found=(
            f"{ratio:.3g}× its size, relative difference {error:.2g}",
            f"大小是它的 {ratio:.3g} 倍，相对差异 {error:.2g}",
        ),
        hint_en=hint[0],
        hint_zh=hint[1],
    )


def _float16_forwards(model, run, micro_batches):
    """Fail unless every Linear of `model` returned float16 in each of the `micro_batches` forward calls of `run`:
    checked on every run, so that autocast switched on only for some of them shows."""
    linears = [name for name, module in model.named_modules() if isinstance(module, nn.Linear)]
    outputs = {name: [dtype for called, dtype in run.dtypes if called == name] for name in linears}
    wrong = [name for name in linears if outputs[name] != [torch.float16] * micro_batches]
    if wrong:
        shown = "; ".join(
            f"Linear {name}: {', '.join(str(dtype).removeprefix('torch.') for dtype in outputs[name])}"
            for name in linears
        )
        if all(torch.float16 not in outputs[name] for name in linears):
            text = (
                "no Linear of the model returned float16: the forward did not run under float16 autocast",
                "模型没有一个 Linear 返回 float16：前向没有在 float16 的 autocast 里运行",
            )
            hint = (
                'with torch.autocast("cpu", dtype=torch.float16): loss = loss_fn(model(x), y); the GradScaler '
                "exists for float16's narrow range",
                'with torch.autocast("cpu", dtype=torch.float16): loss = loss_fn(model(x), y)；'
                "GradScaler 就是为 float16 的窄范围准备的",
            )
        elif len(wrong) == len(linears):
            text = (
                f"with {micro_batches} micro-batches, some forward calls did not run under float16 autocast",
                f"{micro_batches} 个微批次时，有的前向没有在 float16 的 autocast 里运行",
            )
            hint = (
                'run every forward call under torch.autocast("cpu", dtype=torch.float16), whatever the number of '
                "micro-batches or max_norm",
                '每次前向都放进 torch.autocast("cpu", dtype=torch.float16)，不管微批次有几个、max_norm 是多少',
            )
        else:
            text = (
                f"the model's Linear {', '.join(wrong)} did not return float16: only part of the forward ran "
                f"under float16 autocast",
                f"模型的 Linear {', '.join(wrong)} 没有返回 float16：只有一部分前向在 float16 的 autocast 里运行",
            )
            hint = (
                'run the whole forward inside with torch.autocast("cpu", dtype=torch.float16): loss = '
                "loss_fn(model(x), y), with no hook or cast that turns part of it back to float32",
                '整个前向都放进 with torch.autocast("cpu", dtype=torch.float16): loss = loss_fn(model(x), y)，'
                "不要用钩子或类型转换把其中一部分改回 float32",
            )
        raise Fail(
            *text,
            expected=(
                f"float16 from each Linear, {micro_batches} times",
                f"每个 Linear 都返回 float16，各 {micro_batches} 次",
            ),
            found=shown,
            hint_en=hint[0],
            hint_zh=hint[1],
        )


def _made_by_method(found, made_by_method):
    """Fail unless the step `found` is `made_by_method`, the unwatched float16 step, up to float32 rounding.
    float16 rounding makes that step differ from the float32 one by a few 1e-4 (relative), and every run of
    the method on the same micro-batches and scale gives the same step to the last bit (or nearly: loss / 3
    and loss * (1 / 3) round apart by 1e-7): a step made from another gradient than the float16 one shows."""
    drift = ((found - made_by_method).norm() / made_by_method.norm()).item()
    if not drift <= 1e-5:  # NaN fails too
        raise Fail(
            "the step was not made from the gradient the float16 backward passes left: it differs from that "
            "step by more than float32 rounding",
            "这一步更新用的不是 float16 反向传播留下的梯度：和那一步的差异超出了 float32 的舍入误差",
            expected=(
                "the step of the float16 gradient, unscaled (relative difference below 1e-5)",
                "由缩回原值的 float16 梯度得到的更新（相对差异小于 1e-5）",
            ),
            found=(f"relative difference {drift:.2g}", f"相对差异 {drift:.2g}"),
            hint_en="between scaler.unscale_(optimizer) and scaler.step(optimizer) only clip_grad_norm_ touches "
            ".grad: a gradient computed some other way (in float32, on a copy) is not the method",
            hint_zh="在 scaler.unscale_(optimizer) 和 scaler.step(optimizer) 之间，只有 clip_grad_norm_ 可以动 "
            ".grad：用别的办法（float32、模型副本）另算的梯度不是这个练习要的方法",
        )


def _one_micro_batch_at_a_time(run, micro_batches, scale):
    """Fail unless `run` ran one forward of ROWS rows and one backward() per micro-batch, each on its own
    loss multiplied by scale / micro_batches, before the next forward: checked after every run, so that a
    method kept for some runs only (branching on max_norm, say) shows."""
    if run.rows != [ROWS] * micro_batches:
        shown = ", ".join(map(str, run.rows)) or "0"
        raise Fail(
            f"the model ran forward on batches of {shown} rows: expected {micro_batches} micro-batches of {ROWS}",
            f"模型前向时的批大小是 {shown}：应当是 {micro_batches} 个各 {ROWS} 行的微批次",
            expected=(f"{micro_batches} forward calls of {ROWS} rows", f"{micro_batches} 次前向，每次 {ROWS} 行"),
            found=(
                f"{'one forward call' if len(run.rows) == 1 else f'{len(run.rows)} forward calls'}, of {shown} rows",
                f"{len(run.rows)} 次前向，行数 {shown}",
            ),
            hint_en="accumulation runs the micro-batches one by one: model(x) for each (x, y) of "
            "micro_batches, never the whole batch at once",
            hint_zh="梯度累加是一个微批次一个微批次地算：对 micro_batches 里的每个 (x, y) 调用 model(x)，"
            "不要把整批拼起来一次算",
        )
    own_pass = [reached == [number] for number, reached in enumerate(run.scaler.reached, start=1)]
    backward_calls = _backward_calls(run)
    if len(run.passes) != micro_batches or backward_calls != micro_batches or not all(own_pass):
        if backward_calls < len(run.passes):  # torch.autograd.grad leaves .grad alone: summing into it by hand
            hint = (
                "call backward() itself: torch.autograd.grad returns the gradients and leaves .grad alone, so "
                "adding them into .grad by hand is not the accumulation this exercise asks for",
                "直接调用 backward()：torch.autograd.grad 只返回梯度，不动 .grad，自己把它们加进 .grad "
                "不是这个练习要的梯度累加",
            )
        else:
            hint = (
                "call scaler.scale(loss / len(micro_batches)).backward() as soon as each micro-batch's "
                "loss is there: adding the losses up and calling backward() once keeps every micro-batch's "
                "graph alive until the end, the memory that accumulation is meant to save",
                "每个微批次的损失一算出来，就调用 scaler.scale(loss / len(micro_batches)).backward()：把损失"
                "加起来最后只调用一次 backward()，会让每个微批次的计算图都活到最后，而省下这份内存正是梯度累加的目的",
            )
        raise Fail(
            f"backward() was called {times(backward_calls)} on {micro_batches} scaled losses: expected one "
            f"backward() per micro-batch, on its own scaled loss",
            f"{micro_batches} 个放大后的损失一共调用了 {backward_calls} 次 backward()：应当每个微批次"
            f"对自己放大后的损失调用一次 backward()",
            expected=(
                f"{micro_batches} × backward(), scaled loss k in backward() k",
                f"{micro_batches} 次 backward()，第 k 个放大后的损失在第 k 次 backward() 里",
            ),
            found=counted(run.passes) if run.passes else ("no backward()", "没有调用 backward()"),
            hint_en=hint[0],
            hint_zh=hint[1],
        )
    if run.before != list(range(micro_batches)):
        raise Fail(
            "the forward calls and the backward() calls did not run one micro-batch after the other",
            "前向和 backward() 的顺序不是一个微批次接一个微批次",
            expected=(
                ", ".join(["forward, backward()"] * micro_batches),
                "，".join(["前向，backward()"] * micro_batches),
            ),
            found=run.order(),
            hint_en="finish each micro-batch before the next one starts: forward, loss, "
            "scaler.scale(loss / len(micro_batches)).backward(). With every forward call first, all their "
            "graphs are alive at once, the memory of the whole batch that accumulation is meant to save",
            hint_zh="一个微批次做完再开始下一个：前向、损失、scaler.scale(loss / len(micro_batches)).backward()。"
            "先把所有前向都做完，所有微批次的计算图就同时存在，占的是整批的内存，而省下这份内存正是梯度累加的目的",
        )
    # The gradient reaching a loss is the factor its backward multiplied it by: scale / micro_batches for
    # scaler.scale(loss / len(micro_batches)), less when the scaled loss is divided again before backward(),
    # more when the division by the number of micro-batches is left for .grad after the backward passes
    lowest = scale / micro_batches
    if len(run.arrived) != micro_batches or not all(0.99 * lowest <= factor for factor in run.arrived):
        shown = ", ".join(f"{factor:.3g}" for factor in run.arrived) or "none"
        raise Fail(
            "the float16 backward did not run on the scaled loss: the gradients it carried were not "
            "multiplied by the scale",
            "float16 的反向传播不是从放大后的损失开始的：它传递的梯度没有乘上放大倍数",
            expected=(
                f"each of the {micro_batches} losses of loss_fn multiplied by {lowest:g} "
                f"({scale:g} / {micro_batches}) in its backward()",
                f"loss_fn 返回的 {micro_batches} 个损失，在各自的 backward() 里乘上 {lowest:g}"
                f"（{scale:g} / {micro_batches}）",
            ),
            found=(f"multiplied by {shown}", f"乘上的是 {shown}"),
            hint_en="call backward() on scaler.scale(loss / len(micro_batches)) itself: a loss divided back "
            "before backward() makes the float16 backward run on unscaled gradients, which lose their "
            "small entries, whatever is done to .grad afterwards",
            hint_zh="直接对 scaler.scale(loss / len(micro_batches)) 调用 backward()：backward() 之前又除回去，"
            "float16 的反向传播算的就是没放大的梯度，很小的分量会丢掉，事后再怎么改 .grad 也找不回来",
        )
    if not all(factor <= 1.01 * lowest for factor in run.arrived):
        shown = ", ".join(f"{factor:.3g}" for factor in run.arrived)
        raise Fail(
            "the losses were not divided by the number of micro-batches before backward(): their backward "
            "multiplied them by more than the scale divided by it",
            "损失在 backward() 之前没有除以微批次数：它们的反向传播乘上的倍数比放大倍数除以微批次数还大",
            expected=(
                f"each loss multiplied by {lowest:g} ({scale:g} / {micro_batches})",
                f"每个损失乘上 {lowest:g}（{scale:g} / {micro_batches}）",
            ),
            found=(f"multiplied by {shown}", f"乘上的是 {shown}"),
            hint_en="divide each loss before it is scaled, scaler.scale(loss / len(micro_batches)).backward(): "
            "the gradients then add up to the scaled gradient of the whole batch, and .grad is left "
            "alone until unscale_",
            hint_zh="每个损失放大之前先除，scaler.scale(loss / len(micro_batches)).backward()：这样梯度加起来"
            "就是整批放大后的梯度，unscale_ 之前不用再动 .grad",
        )


@exercise(
    "accumulation-at-scale/grad-scaler-step",
    en="one accumulated float16 step with a GradScaler: scale, unscale_, clip, step, update",
    zh="用 GradScaler 做一次 float16 的累加更新：scale、unscale_、裁剪、step、update",
)
def grad_scaler_step(solution, check):
    model, x, y = _setup(0)
    expected, true_norm = _reference_update(model, x, y, max_norm=1e6)

    check(
        f"accumulated_step on {MICRO_BATCHES} micro-batches of {ROWS} rows runs the model forward on each of "
        f"them, one at a time",
        f"accumulated_step 处理 {MICRO_BATCHES} 个各 {ROWS} 行的微批次：模型对每个微批次各做一次前向",
    )
    run = _run(solution, model, x, y, max_norm=1e6)
    if run.rows != [ROWS] * MICRO_BATCHES:  # the rest of the structure after the float16 check
        _one_micro_batch_at_a_time(run, MICRO_BATCHES, SCALE)

    check(
        "each forward runs under float16 autocast: every Linear of the model returns float16",
        "每次前向都在 float16 的 autocast 里运行：模型的每个 Linear 都返回 float16",
    )
    _float16_forwards(model, run, MICRO_BATCHES)

    check(
        f"scaler.scale is called once per micro-batch, and each micro-batch's loss goes through its own "
        f"backward() multiplied by the scale ({MICRO_BATCHES} in all), before the next micro-batch's forward",
        f"每个微批次调用一次 scaler.scale，每个微批次的损失乘上放大倍数，各自做一次 backward()（共 {MICRO_BATCHES} 次），"
        f"并且在下一个微批次的前向之前",
    )
    scaler = run.scaler
    counts = {name: scaler.calls.count(name) for name in ("scale", "unscale_", "step", "update")}
    if counts["scale"] != MICRO_BATCHES:
        raise Fail(
            f"scaler.scale was called {times(counts['scale'])}: every micro-batch loss goes through it",
            f"scaler.scale 被调用了 {counts['scale']} 次：每个微批次的损失都要经过它",
            expected=(f"scale × {MICRO_BATCHES}", f"scale {MICRO_BATCHES} 次"),
            found=_calls(scaler),
            hint_en="scaler.scale(loss / len(micro_batches)).backward() for each micro-batch: an "
            "unscaled float16 gradient loses its small entries",
            hint_zh="每个微批次都写 scaler.scale(loss / len(micro_batches)).backward()：不放大的 float16 梯度会丢掉很小的分量",
        )
    _one_micro_batch_at_a_time(run, MICRO_BATCHES, SCALE)

    check(
        "then scaler.unscale_ once, scaler.step once and scaler.update once, in that order",
        "然后 scaler.unscale_ 一次、scaler.step 一次、scaler.update 一次，依次调用",
    )
    if counts["step"] != 1 or counts["update"] != 1:
        if counts["step"] == 0:
            hint = (
                "step through scaler.step(optimizer), not optimizer.step(): it unscales if you have not, and "
                "skips a step whose gradients hold inf or NaN",
                "用 scaler.step(optimizer) 更新，而不是 optimizer.step()：没 unscale_ 时它会先做，梯度里有 inf 或 "
                "NaN 时它会跳过这一步",
            )
        else:
            hint = (
                "a step per micro-batch updates with a quarter of the batch each time, and an update() between "
                "micro-batches without a step raises 'No inf checks were recorded prior to update.'",
                "每个微批次都 step，等于每次只用四分之一个批次更新；两个微批次之间没有 step 就调用 update()，"
                "会直接抛出 'No inf checks were recorded prior to update.'",
            )
        raise Fail(
            f"scaler.step was called {times(counts['step'])} and scaler.update {times(counts['update'])}: "
            f"one of each per accumulated batch",
            f"scaler.step 调用了 {counts['step']} 次、scaler.update {counts['update']} 次：每个累加批次各一次",
            expected=(
                "step × 1, update × 1, after the last backward()",
                "最后一次反向传播之后，step 一次、update 一次",
            ),
            found=_calls(scaler),
            hint_en=hint[0],
            hint_zh=hint[1],
        )
    last_scale = max(i for i, name in enumerate(scaler.calls) if name == "scale")
    if scaler.calls.index("step") < last_scale:
        raise Fail(
            "scaler.step ran before the last micro-batch was scaled",
            "最后一个微批次还没放大，scaler.step 就执行了",
            expected=(
                f"scale × {MICRO_BATCHES}, then step, then update",
                f"先 scale {MICRO_BATCHES} 次，再 step，再 update",
            ),
            found=_calls(scaler),
            hint_en="call backward() on every micro-batch's scaled loss first, then step once",
            hint_zh="先让每个微批次都做完反向传播，再 step 一次",
        )
    if scaler.calls[last_scale + 1 : scaler.calls.index("step")] != ["unscale_"]:
        raise Fail(
            "scaler.unscale_ was not called once between the last backward() and scaler.step",
            "在最后一次反向传播和 scaler.step 之间，scaler.unscale_ 没有恰好调用一次",
            expected=(
                f"scale × {MICRO_BATCHES}, unscale_, step, update",
                f"scale {MICRO_BATCHES} 次，然后 unscale_、step、update",
            ),
            found=_calls(scaler),
            hint_en="scaler.unscale_(optimizer) turns .grad back into the true gradient, which is what "
            "clip_grad_norm_(model.parameters(), max_norm) must see: not a max_norm multiplied by "
            "the scale",
            hint_zh="scaler.unscale_(optimizer) 把 .grad 变回真实的梯度，clip_grad_norm_(model.parameters(), "
            "max_norm) 要看的就是它，而不是乘上放大倍数的 max_norm",
        )
    if not all(scaler.stepped_own) or not all(run.inside_step):
        outside = run.inside_step.count(False)
        raise Fail(
            "optimizer.step() ran outside scaler.step"
            if outside
            else "scaler.step was handed an optimizer other than the one accumulated_step received",
            "optimizer.step() 是在 scaler.step 之外调用的"
            if outside
            else "交给 scaler.step 的不是 accumulated_step 收到的那个优化器",
            expected=(
                "scaler.step(optimizer) with the optimizer passed in, which calls optimizer.step() itself",
                "scaler.step(optimizer)，用传进来的优化器，由它去调用 optimizer.step()",
            ),
            found=(
                f"optimizer.step() {times(outside)} outside scaler.step; scaler.step handed the "
                f"optimizer passed in: {', '.join(map(str, scaler.stepped_own))}",
                f"optimizer.step() 在 scaler.step 之外调用了 {outside} 次；scaler.step 收到的是传进来的优化器："
                f"{'、'.join('是' if own else '否' for own in scaler.stepped_own)}",
            ),
            hint_en="step only through scaler.step(optimizer): it unscales if you have not and skips the "
            "step when a gradient holds inf or NaN; update() then lowers the scale",
            hint_zh="只通过 scaler.step(optimizer) 更新：没 unscale_ 时它会先做，梯度里有 inf 或 NaN 时它会"
            "跳过这一步，之后 update() 再调低放大倍数",
        )

    check(
        f"after this clean step, scaler.update() leaves the scale at {SCALE:g} and counts one step without inf or NaN",
        f"这一步没有溢出：scaler.update() 之后放大倍数还是 {SCALE:g}，没有 inf 或 NaN 的步数记为 1",
    )
    tracker = int(scaler.state_dict()["_growth_tracker"])
    if scaler.get_scale() != SCALE or tracker != 1:
        raise Fail(
            "after a step without inf or NaN the scaler did not do what scaler.update() does",
            "一步没有 inf 或 NaN，GradScaler 的状态却和 scaler.update() 留下的不一样",
            expected=(f"scale {SCALE:g}, clean steps counted 1", f"放大倍数 {SCALE:g}，正常步数 1"),
            found=(
                f"scale {scaler.get_scale():g}, clean steps counted {tracker}",
                f"放大倍数 {scaler.get_scale():g}，正常步数 {tracker}",
            ),
            hint_en="call scaler.update() with no argument: it lowers the scale only after a step with inf "
            "or NaN, and counts the clean ones until it may raise it; a scale you pass in, or set "
            "yourself, replaces that",
            hint_zh="不带参数调用 scaler.update()：只有出现 inf 或 NaN 的那一步之后它才调低放大倍数，正常的步它会计数，"
            "数够了再调高；自己传入或设置放大倍数，就把这套机制换掉了",
        )

    check(
        "without clipping in the way, the parameters move as one float32 step on the whole batch would, up to "
        "float16 rounding, and as the unscaled float16 gradient moves them, up to float32 rounding",
        "裁剪不起作用时，参数的变化和整批一次 float32 更新相同，只差 float16 的舍入：和缩回原值的 float16 梯度给出的更新只差 float32 的舍入",
    )
    _compare(run.change, expected, MICRO_BATCHES)
    _made_by_method(run.change, _float16_update(model, x, y))
    check(
        f"the same with {OTHER_MICRO_BATCHES} micro-batches and a GradScaler that starts at {OTHER_SCALE:g}",
        f"换成 {OTHER_MICRO_BATCHES} 个微批次、放大倍数从 {OTHER_SCALE:g} 开始的 GradScaler，也一样",
    )
    other_model, other_x, other_y = _setup(1, OTHER_MICRO_BATCHES)
    other_expected, _ = _reference_update(other_model, other_x, other_y, max_norm=1e6)
    other = _run(
        solution, other_model, other_x, other_y, max_norm=1e6, micro_batches=OTHER_MICRO_BATCHES, init_scale=OTHER_SCALE
    )
    if (
        other.rows != [ROWS] * OTHER_MICRO_BATCHES
        or len(other.passes) != OTHER_MICRO_BATCHES
        or _backward_calls(other) != OTHER_MICRO_BATCHES
    ):
        passes_en, passes_zh = counted(other.passes) if other.passes else ("no backward()", "没有调用 backward()")
        raise Fail(
            f"with {OTHER_MICRO_BATCHES} micro-batches the model ran {len(other.rows)} forward calls and "
            f"{_backward_calls(other)} backward() calls",
            f"{OTHER_MICRO_BATCHES} 个微批次时，模型做了 {len(other.rows)} 次前向、{_backward_calls(other)} 次 "
            f"backward()",
            expected=(f"{OTHER_MICRO_BATCHES} of each", f"各 {OTHER_MICRO_BATCHES} 次"),
            found=(
                f"forward calls of {', '.join(map(str, other.rows)) or '0'} rows; {passes_en}",
                f"前向的行数 {'、'.join(map(str, other.rows)) or '0'}；{passes_zh}",
            ),
            hint_en="loop over micro_batches, whatever their number",
            hint_zh="遍历 micro_batches，不管有几个",
        )
    # scaler.scale(loss / len(micro_batches)) multiplies each loss by the scaler's own scale over their number
    other_lowest = OTHER_SCALE / OTHER_MICRO_BATCHES
    if not all(factor <= 1.01 * other_lowest for factor in other.arrived):  # NaN fails too
        shown = ", ".join(f"{factor:.3g}" for factor in other.arrived)
        raise Fail(
            f"the losses' backward multiplied them by more than the scaler's scale over the number of "
            f"micro-batches, {OTHER_SCALE:g} / {OTHER_MICRO_BATCHES}: the scale came from somewhere other than "
            f"scaler.scale, or the division was left for .grad",
            f"损失的反向传播乘上的倍数比 GradScaler 的放大倍数除以微批次数（{OTHER_SCALE:g} / {OTHER_MICRO_BATCHES}）"
            f"还大：放大倍数不是来自 scaler.scale，或者除以微批次数的事留给了 .grad",
            expected=(
                f"each loss multiplied by {OTHER_SCALE:g} / {OTHER_MICRO_BATCHES}",
                f"每个损失乘上 {OTHER_SCALE:g} / {OTHER_MICRO_BATCHES}",
            ),
            found=(f"multiplied by {shown}", f"乘上的是 {shown}"),
            hint_en="the scale changes as training goes (update() halves it after an overflow), and a "
            "scaler can start anywhere: multiply only through scaler.scale(loss / len(micro_batches)), "
            "never by a number written out",
            hint_zh="放大倍数在训练中会变（溢出后 update() 会把它减半），GradScaler 也可以从任何值开始：只通过 "
            "scaler.scale(loss / len(micro_batches)) 放大，不要乘一个写死的数",
        )
    _float16_forwards(other_model, other, OTHER_MICRO_BATCHES)
    _compare(other.change, other_expected, OTHER_MICRO_BATCHES)
    _made_by_method(other.change, _float16_update(other_model, other_x, other_y, OTHER_MICRO_BATCHES, OTHER_SCALE))
    _one_micro_batch_at_a_time(other, OTHER_MICRO_BATCHES, OTHER_SCALE)

    max_norm = true_norm / 4
    check(
        f"with max_norm = {max_norm:.3g} (a quarter of the gradient's norm {true_norm:.3g}) the step is clipped "
        f"as the float32 one is, by clip_grad_norm_ called between scaler.unscale_ and scaler.step: it measures "
        f"the unscaled gradient",
        f"max_norm = {max_norm:.3g}（梯度范数 {true_norm:.3g} 的四分之一）时，裁剪结果和 float32 的一样，"
        f"裁剪由 scaler.unscale_ 和 scaler.step 之间调用的 clip_grad_norm_ 完成：它量的是缩回原值的梯度",
    )
    expected, _ = _reference_update(model, x, y, max_norm=max_norm)
    run = _run(solution, model, x, y, max_norm=max_norm)
    _float16_forwards(model, run, MICRO_BATCHES)
    found, scaler = run.change, run.scaler
    error = ((found - expected).norm() / expected.norm()).item()
    if not error <= 2e-2:  # NaN fails too
        ratio = (expected.norm() / found.norm()).item() if found.norm() > 0 else float("inf")
        clipped_first = bool(scaler.norms_at_unscale) and scaler.norms_at_unscale[0] <= max_norm * 1.01
        raise Fail(
            "the clipped step differs from the float32 one"
            + (": clip_grad_norm_ ran before scaler.unscale_, on the scaled gradients" if clipped_first else ""),
            "裁剪后的更新和 float32 的不同"
            + ("：clip_grad_norm_ 在 scaler.unscale_ 之前运行，裁剪的是放大后的梯度" if clipped_first else ""),
            expected=(f"a step of norm {expected.norm().item():.3g}", f"更新的范数 {expected.norm().item():.3g}"),
            found=(
                f"a step of norm {found.norm().item():.3g}, {ratio:.3g}× smaller",
                f"更新的范数 {found.norm().item():.3g}，小了 {ratio:.3g} 倍",
            ),
            hint_en="before unscale_ the gradients are the scale (65536) times too large, so clipping them to max_norm "
            "shrinks them 65536 times too much: call scaler.unscale_(optimizer), then clip_grad_norm_",
            hint_zh="unscale_ 之前梯度是真实值的 65536 倍，按 max_norm 裁剪会多缩小 65536 倍："
            "先 scaler.unscale_(optimizer)，再 clip_grad_norm_",
        )
    # unscale_ must find the scaled, unclipped gradient: a clip to max_norm times the scale before it leaves
    # at most a quarter of that norm here
    if not scaler.norms_at_unscale or not scaler.norms_at_unscale[0] >= 0.9 * SCALE * true_norm:
        found_norm = scaler.norms_at_unscale[0] if scaler.norms_at_unscale else 0.0
        raise Fail(
            "the gradients were clipped before scaler.unscale_: unscale_ found them already smaller than "
            "the scaled gradient",
            "梯度在 scaler.unscale_ 之前就被裁剪了：unscale_ 拿到的梯度已经比放大后的梯度小",
            expected=(
                f"at unscale_, a norm of about {SCALE * true_norm:.3g} ({SCALE:g} × {true_norm:.3g})",
                f"unscale_ 时范数约为 {SCALE * true_norm:.3g}（{SCALE:g} × {true_norm:.3g}）",
            ),
            found=(f"a norm of {found_norm:.3g}", f"范数 {found_norm:.3g}"),
            hint_en="leave .grad alone between the last backward() and scaler.unscale_(optimizer); clip "
            "after unscale_, to max_norm itself, not to max_norm multiplied by the scale",
            hint_zh="最后一次 backward() 和 scaler.unscale_(optimizer) 之间不要动 .grad；在 unscale_ 之后裁剪，"
            "裁到 max_norm 本身，而不是乘上放大倍数的 max_norm",
        )

    # clip_grad_norm_ itself must measure the gradient: the same clip computed from the scaled norm before
    # unscale_ and applied by hand after it gives the same numbers without the rule this exercise teaches
    window = scaler.calls.index("step")
    measured = [norm for position, given, norm in run.clips if position == window and given == max_norm]
    if (
        len(run.clips) != len(measured) or not measured or not abs(measured[0] - true_norm) <= 2e-2 * true_norm
    ):  # NaN fails too
        shown_en = (
            "; ".join(
                f"after {', '.join(scaler.calls[:position]) or 'no scaler call'}: max_norm {given:.3g}, "
                f"returned {norm:.3g}"
                for position, given, norm in run.clips
            )
            or "no clip_grad_norm_ call"
        )
        shown_zh = (
            "；".join(
                f"在 {', '.join(scaler.calls[:position]) or '任何 scaler 调用'} 之后：max_norm {given:.3g}，"
                f"返回 {norm:.3g}"
                for position, given, norm in run.clips
            )
            or "没有调用 clip_grad_norm_"
        )
        raise Fail(
            "clip_grad_norm_ did not measure and clip the unscaled gradient between scaler.unscale_ and scaler.step",
            "clip_grad_norm_ 没有在 scaler.unscale_ 和 scaler.step 之间测量并裁剪缩回原值的梯度",
            expected=(
                f"clip_grad_norm_(model.parameters(), {max_norm:.3g}) between unscale_ and step, "
                f"returning about {true_norm:.3g}",
                f"在 unscale_ 和 step 之间调用 clip_grad_norm_(model.parameters(), {max_norm:.3g})，"
                f"返回值约为 {true_norm:.3g}",
            ),
            found=(shown_en, shown_zh),
            hint_en="after scaler.unscale_(optimizer), call nn.utils.clip_grad_norm_(model.parameters(), "
            "max_norm) and nothing else on .grad: the norm it returns is the true gradient's, the one "
            "to log and to watch",
            hint_zh="scaler.unscale_(optimizer) 之后调用 nn.utils.clip_grad_norm_(model.parameters(), "
            "max_norm)，不要再用别的办法改 .grad：它返回的是真实梯度的范数，记日志、看训练状况都用它",
        )

    _one_micro_batch_at_a_time(run, MICRO_BATCHES, SCALE)

    check(
        "when one micro-batch overflows float16, scaler.step skips the step and scaler.update() halves the scale",
        "有一个微批次在 float16 里溢出时，scaler.step 跳过这一步，scaler.update() 把放大倍数减半",
    )
    spoiled = x.clone()
    spoiled[ROWS : 2 * ROWS] *= 1e4
    run = _run(solution, model, spoiled, y, max_norm=1e6)
    _float16_forwards(model, run, MICRO_BATCHES)
    found, scaler = run.change, run.scaler
    if not torch.isfinite(found).all() or found.abs().max() > 0 or scaler.get_scale() != 32768.0:
        if not scaler.found_non_finite and "step" in scaler.calls:
            text = (
                "no gradient became inf or NaN, so there was nothing to skip",
                "没有任何梯度变成 inf 或 NaN，所以没有什么可跳过的",
            )
            hint = (
                "micro-batch 2 here has inputs 1e4 times too large, and its backward overflows float16: run "
                'each micro-batch as it is given, its forward under torch.autocast("cpu", dtype=torch.float16)',
                "这里第 2 个微批次的输入大了 1e4 倍，它的反向传播会超出 float16 的范围：每个微批次照原样计算，"
                '前向放在 torch.autocast("cpu", dtype=torch.float16) 里',
            )
        else:
            text = ("after an overflow the parameters still changed", "溢出之后参数还是变了")
            hint = (
                "step through scaler.step(optimizer), not optimizer.step(): it skips a step whose gradients "
                "hold inf or NaN",
                "用 scaler.step(optimizer) 更新，而不是 optimizer.step()：梯度里有 inf 或 NaN 时它会跳过这一步",
            )
        raise Fail(
            *text,
            expected=("parameters unchanged, scale 32768", "参数不变，放大倍数 32768"),
            found=(
                f"largest change {found.abs().max().item():.3g}, scale {scaler.get_scale():g}",
                f"最大变化 {found.abs().max().item():.3g}，放大倍数 {scaler.get_scale():g}",
            ),
            hint_en=hint[0],
            hint_zh=hint[1],
        )
    # that outcome can be made by hand (a check of .grad, no scaler.step, the scale set): the skip must be
    # scaler.step's, on the inf unscale_ found, and the halving update()'s own
    method_calls = ["scale"] * MICRO_BATCHES + ["unscale_", "step", "update"]
    if (
        scaler.calls != method_calls
        or not scaler.found_non_finite
        or scaler.new_scales != [None]
        or run.inside_step
        or not all(scaler.stepped_own)
    ):
        given = ", ".join("no argument" if new is None else repr(new) for new in scaler.new_scales) or "no call"
        given_zh = "、".join("不带参数" if new is None else f"传入 {new!r}" for new in scaler.new_scales) or "没有调用"
        stepped = len(run.inside_step)
        raise Fail(
            "after the overflow, the step was not skipped by scaler.step and the scale not halved by scaler.update()",
            "溢出之后，跳过这一步的不是 scaler.step，把放大倍数减半的也不是 scaler.update()",
            expected=(
                f"scale × {MICRO_BATCHES}, unscale_ finding the inf, step with the optimizer passed in "
                f"and no optimizer.step(), update() with no argument",
                f"scale {MICRO_BATCHES} 次，unscale_ 发现 inf，step 用传进来的优化器且不调用 "
                f"optimizer.step()，不带参数的 update()",
            ),
            found=(
                f"{_calls(scaler)}; unscale_ found inf or NaN: {'yes' if scaler.found_non_finite else 'no'}; "
                f"update() given {given}; optimizer.step() {times(stepped)}",
                f"{_calls(scaler)}；unscale_ 发现 inf 或 NaN：{'是' if scaler.found_non_finite else '否'}；"
                f"update()：{given_zh}；optimizer.step() {stepped} 次",
            ),
            hint_en="call scaler.unscale_(optimizer), clip, scaler.step(optimizer) and scaler.update() on "
            "every batch, overflow or not: scaler.step skips optimizer.step() when unscale_ found an "
            "inf or NaN, and update() then halves the scale; checking .grad yourself does their work "
            "by hand",
            hint_zh="不管有没有溢出，每个批次都调用 scaler.unscale_(optimizer)、裁剪、scaler.step(optimizer) 和 "
            "scaler.update()：unscale_ 发现 inf 或 NaN 时，scaler.step 会跳过 optimizer.step()，"
            "之后 update() 把放大倍数减半；自己检查 .grad 来跳过，就是手工代替了它们",
        )
    _one_micro_batch_at_a_time(run, MICRO_BATCHES, SCALE)
