"""Exercises of the chapter accumulation-at-scale."""

import copy

import torch
from torch import nn

from exercise_judge.checking import Fail, exercise, times

MICRO_BATCHES, ROWS, LR = 4, 16, 0.1


class RecordingScaler(torch.amp.GradScaler):
    """A GradScaler("cpu") that writes down every call the solution makes, and the gradients'
    total norm each time unscale_ starts (so that a clip before it shows)."""

    def __init__(self):
        super().__init__("cpu")
        self.calls, self.norms_at_unscale, self._in_step = [], [], False

    def scale(self, outputs):
        self.calls.append("scale")
        return super().scale(outputs)

    def unscale_(self, optimizer):
        if not self._in_step:
            self.calls.append("unscale_")
            grads = [p.grad for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
            self.norms_at_unscale.append(torch.cat([g.flatten() for g in grads]).norm().item() if grads else 0.0)
        return super().unscale_(optimizer)

    def step(self, optimizer, *args, **kwargs):
        self.calls.append("step")
        self._in_step = True
        try:
            return super().step(optimizer, *args, **kwargs)
        finally:
            self._in_step = False

    def update(self, new_scale=None):
        self.calls.append("update")
        return super().update(new_scale)


def _setup(seed):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    x, y = torch.randn(MICRO_BATCHES * ROWS, 8), torch.randn(MICRO_BATCHES * ROWS, 1)
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


def _run(solution, model, x, y, max_norm):
    model = copy.deepcopy(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    scaler = RecordingScaler()
    before = _flat(model)
    micro_batches = list(zip(x.chunk(MICRO_BATCHES), y.chunk(MICRO_BATCHES)))
    solution.accumulated_step(model, nn.functional.mse_loss, optimizer, scaler, micro_batches, max_norm)
    return _flat(model) - before, scaler


def _calls(scaler):
    return ", ".join(scaler.calls) or "none"


@exercise("accumulation-at-scale/grad-scaler-step",
          en="one accumulated float16 step with a GradScaler: scale, unscale_, clip, step, update",
          zh="用 GradScaler 做一次 float16 的累加更新：scale、unscale_、裁剪、step、update")
def grad_scaler_step(solution, check):
    model, x, y = _setup(0)
    expected, true_norm = _reference_update(model, x, y, max_norm=1e6)

    check(f"accumulated_step on {MICRO_BATCHES} micro-batches calls scaler.scale once per micro-batch, "
          f"then scaler.step once and scaler.update once",
          f"accumulated_step 处理 {MICRO_BATCHES} 个微批次：每个微批次调用一次 scaler.scale，"
          f"然后 scaler.step 一次、scaler.update 一次")
    found, scaler = _run(solution, model, x, y, max_norm=1e6)
    counts = {name: scaler.calls.count(name) for name in ("scale", "unscale_", "step", "update")}
    if counts["scale"] != MICRO_BATCHES:
        raise Fail(f"scaler.scale was called {times(counts['scale'])}: every micro-batch loss goes through it",
                   f"scaler.scale 被调用了 {counts['scale']} 次：每个微批次的损失都要经过它",
                   expected=(f"scale × {MICRO_BATCHES}", f"scale {MICRO_BATCHES} 次"), found=_calls(scaler),
                   hint_en="scaler.scale(loss / number_of_micro_batches).backward() for each micro-batch: an "
                           "unscaled float16 gradient loses its small entries",
                   hint_zh="每个微批次都写 scaler.scale(loss / 微批次数).backward()：不放大的 float16 梯度会丢掉很小的分量")
    if counts["step"] != 1 or counts["update"] != 1:
        if counts["step"] == 0:
            hint = ("step through scaler.step(optimizer), not optimizer.step(): it unscales if you have not, and "
                    "skips a step whose gradients hold inf or NaN",
                    "用 scaler.step(optimizer) 更新，而不是 optimizer.step()：没 unscale_ 时它会先做，梯度里有 inf 或 "
                    "NaN 时它会跳过这一步")
        else:
            hint = ("a step per micro-batch updates with a quarter of the batch each time, and an update() between "
                    "micro-batches without a step raises 'No inf checks were recorded prior to update.'",
                    "每个微批次都 step，等于每次只用四分之一个批次更新；两个微批次之间没有 step 就调用 update()，"
                    "会直接抛出 'No inf checks were recorded prior to update.'")
        raise Fail(f"scaler.step was called {times(counts['step'])} and scaler.update {times(counts['update'])}: "
                   f"one of each per accumulated batch",
                   f"scaler.step 调用了 {counts['step']} 次、scaler.update {counts['update']} 次："
                   f"每个累加批次各一次",
                   expected=("step × 1, update × 1, after the last backward",
                             "最后一次反向之后，step 一次、update 一次"),
                   found=_calls(scaler), hint_en=hint[0], hint_zh=hint[1])
    if scaler.calls.index("step") < max(i for i, name in enumerate(scaler.calls) if name == "scale"):
        raise Fail("scaler.step ran before the last micro-batch was scaled", "最后一个微批次还没放大，scaler.step 就执行了",
                   expected=("scale × 4, then step, then update", "先 scale 4 次，再 step，再 update"), found=_calls(scaler),
                   hint_en="backward every micro-batch first, then step once", hint_zh="先把每个微批次都反向一遍，再 step 一次")

    check("without clipping in the way, the parameters move as one float32 step on the whole batch would",
          "裁剪不起作用时，参数的变化和整批一次 float32 更新相同")
    error = ((found - expected).norm() / expected.norm()).item()
    ratio = (found.norm() / expected.norm()).item()
    if error > 2e-2:
        if abs(ratio - MICRO_BATCHES) < 0.1:
            hint = (f"each micro-batch loss is a mean; {MICRO_BATCHES} of them added count the batch "
                    f"{MICRO_BATCHES} times: divide each loss by {MICRO_BATCHES} before scaling",
                    f"每个微批次的损失是平均值，{MICRO_BATCHES} 个加起来等于把整批算了 {MICRO_BATCHES} 遍："
                    f"放大前每个损失先除以 {MICRO_BATCHES}")
        elif ratio == 0:
            hint = ("the parameters did not move: did scaler.step find an inf, or was the optimizer never stepped?",
                    "参数没有动：是 scaler.step 发现了 inf，还是根本没有更新？")
        else:
            hint = ("scale every micro-batch loss divided by their number, unscale_ once, then step",
                    "每个微批次的损失除以微批次数再放大，unscale_ 一次，然后 step")
        raise Fail("the parameters moved differently from one float32 step on the whole batch",
                   "参数的变化和整批一次 float32 更新不同",
                   expected=("the one-batch step (relative difference below 2e-2)", "整批一次更新（相对差异小于 2e-2）"),
                   found=(f"{ratio:.3g}× its size, relative difference {error:.2g}",
                          f"大小是它的 {ratio:.3g} 倍，相对差异 {error:.2g}"),
                   hint_en=hint[0], hint_zh=hint[1])

    max_norm = true_norm / 4
    check(f"with max_norm = {max_norm:.3g} (a quarter of the gradient's norm {true_norm:.3g}) the step is clipped "
          f"as the float32 one is: clipping sees the unscaled gradient",
          f"max_norm = {max_norm:.3g}（梯度范数 {true_norm:.3g} 的四分之一）时，裁剪结果和 float32 的一样："
          f"裁剪看到的是缩回原值的梯度")
    expected, _ = _reference_update(model, x, y, max_norm=max_norm)
    found, scaler = _run(solution, model, x, y, max_norm=max_norm)
    error = ((found - expected).norm() / expected.norm()).item()
    if error > 2e-2:
        ratio = (expected.norm() / found.norm()).item() if found.norm() > 0 else float("inf")
        clipped_first = bool(scaler.norms_at_unscale) and scaler.norms_at_unscale[0] <= max_norm * 1.01
        raise Fail(
            "the clipped step differs from the float32 one" + (
                ": clip_grad_norm_ ran before scaler.unscale_, on the scaled gradients" if clipped_first else ""),
            "裁剪后的更新和 float32 的不同" + ("：clip_grad_norm_ 在 scaler.unscale_ 之前运行，裁剪的是放大后的梯度"
                                         if clipped_first else ""),
            expected=(f"a step of norm {expected.norm().item():.3g}", f"更新的范数 {expected.norm().item():.3g}"),
            found=(f"a step of norm {found.norm().item():.3g}, {ratio:.3g}× smaller",
                   f"更新的范数 {found.norm().item():.3g}，小了 {ratio:.3g} 倍"),
            hint_en="before unscale_ the gradients are the scale (65536) times too large, so clipping them to max_norm "
                    "shrinks them 65536 times too much: call scaler.unscale_(optimizer), then clip_grad_norm_",
            hint_zh="unscale_ 之前梯度是真实值的 65536 倍，按 max_norm 裁剪会多缩小 65536 倍："
                    "先 scaler.unscale_(optimizer)，再 clip_grad_norm_")

    check("when one micro-batch overflows float16, the step is skipped and the scale halves",
          "有一个微批次在 float16 里溢出时，这一步被跳过，放大倍数减半")
    spoiled = x.clone()
    spoiled[ROWS:2 * ROWS] *= 1e4
    found, scaler = _run(solution, model, spoiled, y, max_norm=1e6)
    if not torch.isfinite(found).all() or found.abs().max() > 0 or scaler.get_scale() != 32768.0:
        raise Fail("after an overflow the parameters still changed",
                   "溢出之后参数还是变了",
                   expected=("parameters unchanged, scale 32768", "参数不变，放大倍数 32768"),
                   found=(f"largest change {found.abs().max().item():.3g}, scale {scaler.get_scale():g}",
                          f"最大变化 {found.abs().max().item():.3g}，放大倍数 {scaler.get_scale():g}"),
                   hint_en="step through scaler.step(optimizer), not optimizer.step(): it skips a step whose "
                           "gradients hold inf or NaN",
                   hint_zh="用 scaler.step(optimizer) 更新，而不是 optimizer.step()：梯度里有 inf 或 NaN 时它会跳过这一步")
