"""Exercises of the chapter gradient-accumulation."""

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from exercise_judge import spies
from exercise_judge.checking import Fail, exercise, times
from exercise_judge.spies import autograd_passes, counted

ROWS, FEATURES = 64, 5
# Every check holds for each of these runs: two mean-reduced losses, two numbers of micro-batches,
# so that neither a loss function nor a count written into the solution passes.
RUNS = [(loss, steps) for loss in (nn.functional.mse_loss, nn.functional.smooth_l1_loss) for steps in (4, 2)]
TOLERANCE = 1e-5  # the exercise's "at most 1e-5 in any entry"


class _Derived(TorchFunctionMode):
    """Keeps every tensor a torch function computes from a loss that loss_fn returned (the loss / steps
    that backward() starts from), with the loss's number."""

    def __init__(self, losses):
        super().__init__()
        self.losses, self.tensors = losses, []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        given = list(args) + list((kwargs or {}).values())
        numbers = [k for k, loss in enumerate(self.losses) if any(arg is loss for arg in given)]
        if numbers and isinstance(result, torch.Tensor) and result.requires_grad:
            self.tensors.append((numbers[0], result))
        return result

    def number(self, tensor):
        """The number of the loss `tensor` was computed from, or None."""
        return next((k for k, derived in self.tensors if derived is tensor), None)


class _Roots(spies._ENGINE):
    """Below the judge's recording engine (spies._RecordingEngine, whose run_backward calls this one's),
    the roots of each backward pass and the gradients the engine is handed for them (ones where
    backward() was given none)."""

    def run_backward(self, *args, **kwargs):
        try:
            arguments = spies._PARAMETERS.bind(*args, **kwargs).arguments
            found = list(zip(arguments["tensors"], arguments["grad_tensors"]))
        except (TypeError, KeyError):  # wrong arguments: the engine raises the reader's error below
            found = []
        self.passes.append(found)
        return super().run_backward(*args, **kwargs)


class _RootsEngine(spies._RecordingEngine, _Roots):
    pass


class Run:
    """One call of accumulate, watched: for each forward of the model its input, how many backward
    passes had run before it, and the gradients (with their pass) that reached its output; for each
    call of loss_fn its target and the gradients that reached the loss it returned; for each backward
    pass its roots, as (number of the loss the root was computed from or None, value, gradient given);
    whether every .grad was None when the first backward
    pass reached a loss or an output; for each parameter, after each accumulation into its .grad,
    the pass it came from and a copy of .grad; the passes themselves."""

    def __init__(self, solution, loss, steps, seed):
        torch.manual_seed(seed)
        self.loss, self.steps, self.name = loss, steps, loss.__name__
        self.x, self.y = torch.randn(ROWS, FEATURES), torch.randn(ROWS, 1)
        self.model = nn.Linear(FEATURES, 1)
        self.reference = nn.Linear(FEATURES, 1)
        self.reference.load_state_dict(self.model.state_dict())
        self.forwards, self.targets, self.seeds = [], [], []
        self.outputs, self.losses = [], []  # per forward: (output, [(pass, gradient)]); loss_fn's results
        self.loss_values = []  # a copy of each loss that loss_fn returned
        self.accumulated = {name: [] for name, _ in self.model.named_parameters()}
        with autograd_passes() as passes:
            self.passes = passes

            def forward(module, args, kwargs):
                given = args[0] if args else kwargs.get("input")
                self.forwards.append((given.detach().clone() if torch.is_tensor(given) else None, len(passes)))

            def first_pass():  # called as the first backward pass reaches a loss or an output
                if self.grads_at_start is None:
                    self.grads_at_start = [p.grad is None for p in self.model.parameters()]

            def output(module, args, result):
                grads = []
                self.outputs.append((result.detach().clone() if torch.is_tensor(result) else None, grads))
                if torch.is_tensor(result) and result.requires_grad:
                    result.register_hook(
                        lambda grad: first_pass() or grads.append((len(passes), grad.detach().clone()))
                    )

            self.grads_at_start = None
            self.model.register_forward_pre_hook(forward, with_kwargs=True)
            self.model.register_forward_hook(output)
            for name, parameter in self.model.named_parameters():
                parameter.register_post_accumulate_grad_hook(
                    lambda parameter, name=name: self.accumulated[name].append(
                        (len(passes), parameter.grad.detach().clone())
                    )
                )

            def loss_fn(output, target):
                self.targets.append(target.detach().clone())
                result, seeds = loss(output, target), []
                self.seeds.append(seeds)
                if result.requires_grad:  # what a backward() from (result / steps) hands to result: 1/steps
                    result.register_hook(lambda grad: first_pass() or seeds.append(grad.detach().clone()))
                self.losses.append(result)
                self.loss_values.append(result.detach().clone())
                return result

            derived, engine, roots = _Derived(self.losses), spies._VARIABLE._execution_engine, _RootsEngine()
            roots.passes = []
            spies._VARIABLE._execution_engine = roots
            try:
                with derived:
                    solution.accumulate(self.model, loss_fn, self.x, self.y, steps)
            finally:
                spies._VARIABLE._execution_engine = engine
            self.roots = [
                [
                    (derived.number(root), root.detach().clone(), given.detach().clone())
                    for root, given in found
                    if torch.is_tensor(root) and torch.is_tensor(given)
                ]
                for found in roots.passes
            ]
            derived.losses = derived.tensors = self.losses = []  # let the graphs go

    @property
    def said(self) -> tuple[str, str]:
        return (f"loss_fn = {self.name}, steps = {self.steps}", f"loss_fn = {self.name}、steps = {self.steps}")

    def gradients(self, x, y, weight=1.0):
        """Each parameter's gradient of weight × loss(reference(x), y), by name."""
        self.reference.zero_grad()
        (weight * self.loss(self.reference(x), y)).backward()
        return {name: p.grad.clone() for name, p in self.reference.named_parameters()}

    def sequence(self) -> str:
        """'forward, backward(), forward, ...': the order in which the forward calls and the passes ran."""
        events, done = [], 0
        for _, before in self.forwards:
            events += ["backward()"] * (before - done) + ["forward"]
            done = before
        return ", ".join(events + ["backward()"] * (len(self.passes) - done))


def _values(run):
    """Fail unless every parameter's .grad is the whole batch's gradient."""
    expected = run.gradients(run.x, run.y)
    for name, parameter in run.model.named_parameters():
        found, want = parameter.grad, expected[name]
        if found is None:
            raise Fail(
                f"with {run.said[0]}: model.{name}.grad is None: no backward() reached the model",
                f"{run.said[1]} 时 model.{name}.grad 是 None：没有一次 backward() 到达模型",
                expected=("the gradient of the whole batch", "整个批次的梯度"),
                found="None",
                hint_en="call backward() on each micro-batch's loss; do not call an optimizer or zero_grad()",
                hint_zh="对每个微批次的损失调用 backward()；不要调用优化器，也不要 zero_grad()",
            )
        difference = (found - want).abs().max().item()
        if difference <= TOLERANCE:
            continue
        _losses(run)  # a loss function of its own gives other numbers: say so first
        ratio = (found.norm() / want.norm()).item()
        last = run.accumulated[name][-1][1] if run.accumulated[name] else None
        replaced = last is None or not torch.equal(last, found)
        found_text = (
            f"{ratio:.2f}× the one-batch gradient (largest difference {difference:.2g})",
            f"一个批次梯度的 {ratio:.2f} 倍（最大相差 {difference:.2g}）",
        )
        if replaced:
            raise Fail(
                f"with {run.said[0]}: model.{name}.grad is not what the backward() calls added up: it was set "
                f"or changed after the last backward()",
                f"{run.said[1]} 时 model.{name}.grad 不是各次 backward() 累加出来的：最后一次 backward() 之后"
                f"它被赋值或改动过",
                expected=(
                    "the sum that the micro-batches' backward() calls leave in .grad",
                    "各个微批次调用 backward() 后在 .grad 里留下的和",
                ),
                found=found_text,
                hint_en="let backward() do the adding: the gradient comes from each micro-batch's loss, "
                "scaled before its backward(), not from code that writes .grad",
                hint_zh="让 backward() 去累加：梯度来自每个微批次的损失，在调用 backward() 之前缩放，"
                "而不是由代码直接写进 .grad",
            )
        if name != "weight":  # the weight comes first: it passed
            raise Fail(
                f"with {run.said[0]}: model.{name}.grad differs from the one-batch gradient (the weight's is right)",
                f"{run.said[1]} 时 model.{name}.grad 和一个批次的梯度不同（weight 的是对的）",
                expected=("the one-batch gradient for every parameter", "每个参数都是一个批次的梯度"),
                found=(
                    f"model.{name}.grad: {ratio:.2f}× the one-batch gradient",
                    f"model.{name}.grad：一个批次梯度的 {ratio:.2f} 倍",
                ),
                hint_en="scale the loss, not one parameter's .grad: then every parameter gets its share",
                hint_zh="要缩放的是损失，而不是某个参数的 .grad：这样每个参数都按同样的比例缩小",
            )
        part = ROWS // run.steps
        if abs(ratio - run.steps) < 0.01:
            hint = (
                f"each micro-batch loss is a mean over {part} samples; adding {run.steps} of them counts the "
                f"batch {run.steps} times: divide each loss by {run.steps} before its backward()",
                f"每个微批次的损失是 {part} 个样本的平均，{run.steps} 个加起来等于把整批算了 {run.steps} 遍："
                f"每个损失在调用 backward() 之前要除以 {run.steps}",
            )
        else:
            hint = (
                "call backward() on every micro-batch's loss, divided by steps; call no optimizer, and clear "
                "nothing in between",
                "每个微批次的损失除以 steps 后都要调用一次 backward()，中间不要调用优化器，也不要清除梯度",
            )
        raise Fail(
            f"with {run.said[0]}: the accumulated model.{name}.grad differs from the one-batch gradient",
            f"{run.said[1]} 时累加出来的 model.{name}.grad 和一个批次的梯度不一样",
            expected=(
                f"the one-batch gradient (largest entry {want.abs().max().item():.4g})",
                f"一个批次的梯度（最大分量 {want.abs().max().item():.4g}）",
            ),
            found=found_text,
            hint_en=hint[0],
            hint_zh=hint[1],
        )


def _untouched(run):
    """Fail unless the .grads were None when the first backward pass began and the parameters are
    those it was given."""
    if not all(run.grads_at_start or ()):
        raise Fail(
            f"with {run.said[0]}: a .grad of the model was already set when the first backward() began",
            f"{run.said[1]} 时第一次 backward() 开始的时候，已经有参数的 .grad 被赋过值",
            expected=("every .grad None until the first backward()", "第一次 backward() 之前每个 .grad 都是 None"),
            found=("a .grad written before any backward()", "有 .grad 在任何 backward() 之前就被写过"),
            hint_en="leave .grad alone: the first backward() puts its gradient into a None .grad",
            hint_zh="不要去碰 .grad：第一次 backward() 会把梯度放进为 None 的 .grad",
        )
    changed = [
        name
        for name, value in run.model.state_dict().items()
        if not torch.equal(value, run.reference.state_dict()[name])
    ]
    if changed:
        raise Fail(
            f"with {run.said[0]}: the call changed model.{changed[0]}",
            f"{run.said[1]} 时这次调用改动了 model.{changed[0]}",
            expected=("the parameters as they were given", "参数保持传进来时的样子"),
            found=(f"model.{', model.'.join(changed)} changed", f"model.{'、model.'.join(changed)} 变了"),
            hint_en="only accumulate the gradients: no optimizer step, no change to the weights",
            hint_zh="只累加梯度：不调用优化器的 step()，也不改权重",
        )


def _forwards(run):
    part = ROWS // run.steps
    rows = [len(x) if x is not None else 0 for x, _ in run.forwards]
    if rows != [part] * run.steps:
        shown = ", ".join(map(str, rows)) or "0"
        ran = (
            (f"the model ran on batches of {shown} samples", f"模型运行的批大小是 {shown}")
            if rows
            else ("the model was never called as model(...)", "模型一次也没有以 model(...) 的方式调用")
        )
        raise Fail(
            f"with {run.said[0]}: {ran[0]}: expected {run.steps} micro-batches of {part}",
            f"{run.said[1]} 时{ran[1]}：应当是 {run.steps} 个各含 {part} 个样本的微批次",
            expected=(f"{run.steps} forward calls of {part} samples", f"{run.steps} 次前向，每次 {part} 个样本"),
            found=(
                f"{'one forward call' if len(rows) == 1 else f'{len(rows)} forward calls'}, on {shown} samples",
                f"{len(rows)} 次前向，样本数 {shown}",
            ),
            hint_en="split x and y with x.chunk(steps) and y.chunk(steps), and call model(x_part) on each part"
            + (" (model.forward(x_part) goes around the module's hooks, where the judge counts)" if not rows else ""),
            hint_zh="用 x.chunk(steps)、y.chunk(steps) 切开，逐个调用 model(x_part)"
            + ("（model.forward(x_part) 绕过了模块的钩子，评测在钩子里计数）" if not rows else ""),
        )


def _losses(run):
    part = ROWS // run.steps
    rows = [len(target) for target in run.targets]
    if rows != [part] * run.steps:
        raise Fail(
            f"with {run.said[0]}: loss_fn was called {times(len(rows))}: use the loss function you are "
            f"given, once per micro-batch",
            f"{run.said[1]} 时 loss_fn 被调用了 {len(rows)} 次：要用传进来的损失函数，每个微批次一次",
            expected=(
                f"{run.steps} calls of loss_fn, on {part} samples each",
                f"调用 loss_fn {run.steps} 次，每次 {part} 个样本",
            ),
            found=(
                f"{len(rows)} calls, on {', '.join(map(str, rows)) or '0'} samples",
                f"调用 {len(rows)} 次，样本数 {'、'.join(map(str, rows)) or '0'}",
            ),
            hint_en="the judge passes other loss functions too: loss_fn(model(x_part), y_part), not mse_loss "
            "written out",
            hint_zh="评测也会传别的损失函数进来：写 loss_fn(model(x_part), y_part)，不要自己写死 mse_loss",
        )


def _passes(run):
    kinds = {found.kind for found in run.passes}
    if len(run.passes) != run.steps or kinds != {"backward()"}:
        raise Fail(
            f"with {run.said[0]}: expected one backward() per micro-batch ({run.steps}) and no other backward pass",
            f"{run.said[1]} 时应当每个微批次调用一次 backward()（共 {run.steps} 次），没有别的反向传播",
            expected=(f"{run.steps} × backward()", f"{run.steps} × backward()"),
            found=counted(run.passes) if run.passes else ("no backward pass", "没有任何反向传播"),
            hint_en="call backward() on each micro-batch's loss as soon as you have it: it adds that "
            "micro-batch's gradient into .grad. torch.autograd.grad writes nothing into .grad, and "
            "summing the losses into one backward() keeps every micro-batch's graph alive until the "
            "end, the memory that accumulation is meant to save",
            hint_zh="每个微批次的损失一算出来就调用 backward()：它把这个微批次的梯度加进 .grad。"
            "torch.autograd.grad 不往 .grad 里写任何东西；把损失加起来只调用一次 backward()，"
            "会让每个微批次的计算图都活到最后，而省下这份内存正是梯度累加的目的",
        )


def _order(run):
    before = [count for _, count in run.forwards]
    if before != list(range(run.steps)):
        raise Fail(
            f"with {run.said[0]}: the forward calls and the backward() calls ran in another order than one "
            f"micro-batch after the other",
            f"{run.said[1]} 时前向和 backward() 的顺序不是一个微批次接一个微批次",
            expected=(", ".join(["forward, backward()"] * run.steps), "，".join(["前向、backward()"] * run.steps)),
            found=run.sequence(),
            hint_en="finish each micro-batch before the next one starts: forward, loss, backward(). With every "
            "forward first, all their graphs are alive at once, the memory of the whole batch",
            hint_zh="一个微批次做完再开始下一个：前向、损失、backward()。先把所有前向都做完，"
            "它们的计算图就同时活着，占的内存和整批一样",
        )


def _outputs(run):
    """Fail unless each forward's output receives, in the backward() of its micro-batch and in no other,
    the gradient of loss_fn(output, target) / steps: the backward() starts from that forward's graph."""
    for k, ((output, grads), target) in enumerate(zip(run.outputs, run.targets), start=1):
        if output is None:
            continue  # _forwards has said what the model returned
        passes = [number for number, _ in grads]
        if passes == [k]:
            leaf = output.clone().requires_grad_()
            (want,) = torch.autograd.grad(run.loss(leaf, target) / run.steps, leaf)
            if (grads[0][1] - want).abs().max().item() <= TOLERANCE:
                continue
            found = ("another gradient", "别的梯度")
        elif not passes:
            found = (
                "no gradient: nothing computed from it reached a backward()",
                "没有收到梯度：从它算出来的东西没有进入任何 backward()",
            )
        else:
            found = (
                f"gradients in backward() number {', '.join(map(str, passes))}",
                f"在第 {'、'.join(map(str, passes))} 次 backward() 里收到梯度",
            )
        raise Fail(
            f"with {run.said[0]}: the output of the model's forward {k} did not receive, in backward() {k}, "
            f"the gradient of its loss / {run.steps}",
            f"{run.said[1]} 时模型第 {k} 次前向的输出没有在第 {k} 次 backward() 里收到它的损失 / {run.steps} 的梯度",
            expected=(
                f"the gradient of loss_fn(output, y_part) / {run.steps}, once, in backward() {k}",
                f"loss_fn(output, y_part) / {run.steps} 的梯度，只在第 {k} 次 backward() 里收到一次",
            ),
            found=found,
            hint_en="compute each micro-batch's loss from the output of its own model(x_part) call, and call "
            "backward() on it before the next forward: a graph of the whole batch kept alive is the "
            "memory accumulation is meant to save",
            hint_zh="每个微批次的损失要用它自己那次 model(x_part) 的输出来算，并在下一次前向之前调用 "
            "backward()：让整批的计算图一直活着，正是梯度累加想省下的内存",
        )


def _shares(run):
    for k, ((x, _), target) in enumerate(zip(run.forwards, run.targets), start=1):
        share = run.gradients(x, target, len(x) / ROWS)
        for name, after in run.accumulated.items():
            counts = [number for number, _ in after]
            if counts != list(range(1, run.steps + 1)):
                raise Fail(
                    f"with {run.said[0]}: the gradient was accumulated into model.{name}.grad "
                    f"{times(len(counts))}, not once in each backward()",
                    f"{run.said[1]} 时梯度累加进 model.{name}.grad {len(counts)} 次，不是每次 backward() 一次",
                    expected=(
                        f"one accumulation in each of the {run.steps} backward() calls",
                        f"{run.steps} 次 backward() 各累加一次",
                    ),
                    found=(
                        f"accumulations in backward() number {', '.join(map(str, counts)) or 'none'}",
                        f"累加发生在第 {'、'.join(map(str, counts)) or '（无）'} 次 backward()",
                    ),
                    hint_en="every micro-batch's loss must reach every parameter through its backward()",
                    hint_zh="每个微批次的损失都要通过自己的 backward() 到达每个参数",
                )
            previous = after[k - 2][1] if k > 1 else torch.zeros_like(after[k - 1][1])
            added = after[k - 1][1] - previous
            if not (added - share[name]).abs().max().item() <= TOLERANCE:  # NaN too
                size = (added.norm() / share[name].norm()).item()
                hint = (
                    (
                        "divide each micro-batch's loss by steps before calling backward() on it, not .grad afterwards",
                        "先把每个微批次的损失除以 steps，再对它调用 backward()，而不是事后去除 .grad",
                    )
                    if abs(size - run.steps) < 0.01
                    else (
                        "right after each forward, call backward() on that micro-batch's own loss divided by steps: "
                        "loss_fn(model(x_part), y_part) / steps",
                        "每次前向之后，马上对这个微批次自己的损失除以 steps 调用 backward()："
                        "loss_fn(model(x_part), y_part) / steps",
                    )
                )
                raise Fail(
                    f"with {run.said[0]}: backward() {k} added {size:.2f}× micro-batch {k}'s share of the "
                    f"gradient to model.{name}.grad",
                    f"{run.said[1]} 时第 {k} 次 backward() 加进 model.{name}.grad 的是第 {k} 个微批次那一份梯度"
                    f"的 {size:.2f} 倍",
                    expected=(
                        f"the gradient of micro-batch {k}'s loss × {len(x)}/{ROWS}",
                        f"第 {k} 个微批次损失的梯度 × {len(x)}/{ROWS}",
                    ),
                    found=(f"{size:.2f}× that", f"它的 {size:.2f} 倍"),
                    hint_en=hint[0],
                    hint_zh=hint[1],
                )


def _scaled_losses(run):
    """Fail unless each micro-batch's backward() went through its loss with a gradient of 1/steps, and
    started from one root, computed from that loss and holding loss / steps, with no gradient argument:
    the loss itself divided, not the gradients on their way into .grad (by hooks that stay on the
    model) nor the gradient handed to backward() (next to a decoy that receives the 1)."""
    for k, seeds in enumerate(run.seeds, start=1):
        values = torch.cat([seed.flatten() for seed in seeds]) if seeds else torch.empty(0)
        divided = run.loss_values[k - 1] / run.steps
        if len(seeds) == 1 and torch.allclose(values, torch.full_like(values, 1 / run.steps), rtol=1e-6, atol=0):
            roots = run.roots[k - 1] if k <= len(run.roots) else []
            if len(roots) == 1:
                number, value, given = roots[0]
                if (
                    number == k - 1
                    and value.shape == divided.shape
                    and value.dtype == divided.dtype
                    and torch.allclose(value, divided, rtol=1e-6, atol=0)
                ):
                    if torch.equal(given, torch.ones_like(given)):
                        continue
                    found = (
                        f"backward() {k} started from loss / {run.steps} with a gradient argument of "
                        f"{given.flatten()[0].item():.3g}",
                        f"第 {k} 次 backward() 从损失 / {run.steps} 开始，但带了梯度参数 "
                        f"{given.flatten()[0].item():.3g}",
                    )
                else:
                    found = (
                        f"backward() {k} started from a tensor that does not hold micro-batch {k}'s loss / {run.steps}",
                        f"第 {k} 次 backward() 的起点不是第 {k} 个微批次的损失 / {run.steps}",
                    )
            else:
                found = (
                    f"backward() {k} started from {len(roots)} tensors",
                    f"第 {k} 次 backward() 从 {len(roots)} 个张量开始",
                )
            raise Fail(
                f"with {run.said[0]}: backward() {k} did not start from micro-batch {k}'s loss / "
                f"{run.steps} alone, with no gradient argument: the 1/{run.steps} came from elsewhere (a "
                f"gradient argument, a hook), the loss was not divided",
                f"{run.said[1]} 时第 {k} 次 backward() 不是只从第 {k} 个微批次的损失 / {run.steps} 开始、"
                f"不带梯度参数：1/{run.steps} 来自别处（梯度参数、钩子），损失本身没有除以 steps",
                expected=(
                    f"backward() of the loss divided by {run.steps}, one tensor, with no gradient argument",
                    f"对除以 {run.steps} 之后的损失（一个张量）调用 backward()，不带梯度参数",
                ),
                found=found,
                hint_en="the exercise asks for the loss divided by steps: (loss / steps).backward()",
                hint_zh="题目要求把损失除以 steps：(loss / steps).backward()",
            )
        if not seeds:
            found = ("no backward() went through that loss", "没有一次 backward() 经过这个损失")
        elif len(seeds) > 1:
            found = (f"{len(seeds)} backward passes went through it", f"有 {len(seeds)} 次反向传播经过它")
        else:
            found = (f"a gradient of {values[0].item():.3g}", f"梯度 {values[0].item():.3g}")
        raise Fail(
            f"with {run.said[0]}: the gradient that reached micro-batch {k}'s loss in its backward() was "
            f"{found[0].removeprefix('a gradient of ')}, not 1/{run.steps}: the loss itself was not divided",
            f"{run.said[1]} 时第 {k} 个微批次的损失在 backward() 里收到的是{found[1]}，不是 1/{run.steps}："
            f"损失本身没有除以 steps",
            expected=(
                f"one backward() of loss_fn(...) / {run.steps}, which hands the loss a gradient of 1/{run.steps}",
                f"对 loss_fn(...) / {run.steps} 调用一次 backward()，损失收到的梯度是 1/{run.steps}",
            ),
            found=found,
            hint_en="divide the loss before its backward(): (loss / steps).backward(). Hooks that divide "
            "the gradients stay on the model and shrink every later backward() too",
            hint_zh="在调用 backward() 之前把损失除以 steps：(loss / steps).backward()。用钩子去除梯度，"
            "钩子会一直留在模型上，以后每次 backward() 的梯度也都被缩小",
        )


@exercise(
    "gradient-accumulation/micro-batches",
    en="four micro-batches leave the gradient of one big batch",
    zh="四个微批次留下的梯度，和一个大批次的一样",
)
def micro_batches(solution, check):
    runs = []
    for seed, (loss, steps) in enumerate(RUNS):
        check(
            f"with loss_fn = {loss.__name__} and steps = {steps}, accumulate(model, loss_fn, x, y, steps) leaves "
            f"in every parameter's .grad the gradient of one backward() on the whole batch of {ROWS}",
            f"loss_fn = {loss.__name__}、steps = {steps} 时，accumulate(model, loss_fn, x, y, steps) 在每个参数的 "
            f".grad 里留下的，和对大小为 {ROWS} 的整批调用一次 backward() 得到的梯度相同",
        )
        runs.append(Run(solution, loss, steps, seed))
        _values(runs[-1])

    for en, zh, method in (
        (
            "in each of these runs, every .grad is None when the first backward() begins, and the call leaves "
            "the parameters as it found them",
            "以上每一次运行，第一次 backward() 开始时每个 .grad 都是 None，调用结束后参数和传进来时一样",
            _untouched,
        ),
        (
            f"the model runs forward on `steps` micro-batches of {ROWS} / steps samples",
            f"模型在 steps 个各含 {ROWS} / steps 个样本的微批次上做前向",
            _forwards,
        ),
        ("it calls the loss_fn it is given, once per micro-batch", "它调用传进来的 loss_fn，每个微批次一次", _losses),
        (
            "it calls backward() once per micro-batch, and runs no other backward pass",
            "每个微批次调用一次 backward()，没有别的反向传播",
            _passes,
        ),
        (
            "each micro-batch's backward() comes before the next micro-batch's forward",
            "每个微批次的 backward() 都在下一个微批次的前向之前",
            _order,
        ),
        (
            "each backward() adds its micro-batch's share (its loss × 1/steps) to every parameter's .grad",
            "每次 backward() 给每个参数的 .grad 加上它那个微批次的一份（损失 × 1/steps）",
            _shares,
        ),
        (
            "each backward() starts from one tensor, its micro-batch's loss divided by steps, with no gradient "
            "argument, and that loss receives a gradient of 1/steps, as from (loss / steps).backward()",
            "每次 backward() 都只从一个张量开始：它那个微批次的损失除以 steps，不带梯度参数；这个损失收到的梯度"
            "是 1/steps，和 (loss / steps).backward() 时一样",
            _scaled_losses,
        ),
        (
            "in each micro-batch's backward(), and in no other, the output of its forward receives the gradient "
            "of its loss / steps",
            "每个微批次前向的输出，只在这个微批次的 backward() 里收到它的损失 / steps 的梯度",
            _outputs,
        ),
    ):
        check(en, zh)
        for run in runs:
            method(run)
