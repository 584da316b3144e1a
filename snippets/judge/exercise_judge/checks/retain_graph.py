"""Exercises of the chapter retain-graph."""

import copy
import gc
import math
import threading
import weakref

import torch
from torch import nn
from torch.utils._pytree import tree_flatten, tree_map
from torch.utils._python_dispatch import TorchDispatchMode

from exercise_judge.checking import Fail, described, exercise, shown
from exercise_judge.checks._shared import collecting_only_what_follows, explained, graph_nodes
from exercise_judge.spies import TorchCalls, autograd_passes, counted

BATCH = 16
# Every check holds for each of these epochs (seed, number of batches): other weights and another
# count, so that no mean written into the solution passes.
EPOCHS = ((0, 8), (1, 6))


def _loss_nodes(tensor):
    """How many batch losses hang below `tensor`: the loss nodes reachable from its grad_fn."""
    return sum(type(node).__name__.endswith("LossBackward0") for node in graph_nodes(tensor))


def _a_float(found, expected, tensor_text, tensor_hint, other_text, other_hint) -> float:
    """`found`, when it is a Python float; else the Fail of the exercise, with its own words (each an
    (English, Chinese) pair): tensor_text and tensor_hint for a tensor, other_text and other_hint
    for anything else."""
    if isinstance(found, float):
        return found
    if isinstance(found, torch.Tensor):
        text, hint, what = tensor_text, tensor_hint, shown(found)
    else:
        text, hint, what = other_text, other_hint, described(found)
    raise Fail(*text, expected=expected, found=what, hint_en=hint[0], hint_zh=hint[1])


def _in(said: tuple[str, str], text: tuple[str, str]) -> tuple[str, str]:
    """'with 6 batches: …': a verdict's text, saying which run it is about."""
    return f"{said[0]}: {text[0]}", f"{said[1]}：{text[1]}"


# --- retain-graph/total-loss ---


def _training_run(seed, count):
    """A small regression model, its optimizer and one epoch of `count` batches, from `seed`."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = [(torch.randn(BATCH, 4), torch.randn(BATCH, 1)) for _ in range(count)]
    return model, optimizer, batches


def _reference_epoch(seed, count):
    """The epoch the starter's loop trains, with each loss summed as a float: (mean, losses, model)."""
    model, optimizer, batches = _training_run(seed, count)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses), losses, model


class _Sentinel:
    """Hooked on a node, it lives exactly as long as that node: a weak reference tells whether the graph is alive."""

    def __call__(self, *args):
        return None


class _Epoch:
    """One call of train_epoch on a fresh model, watched. As each forward of the model begins (after
    gc.collect()): how many earlier forwards' graphs are alive (a sentinel hooked on each output's
    node), and how many tensors earlier forwards saved for backward are alive (weak references taken
    by the judge's saved_tensors_hooks); for each forward, how many tensors those hooks saw saved;
    the retain_graph of each backward pass; after the call, how many graphs are still alive. The hooks
    sit on the first layer, which model.forward(x) calls as model(x) does and whose output every loss
    of the model leads back to, however the later layers are called."""

    def __init__(self, solution, seed, count):
        self.count = count
        self.said = (f"with {count} batches (seed {seed})", f"{count} 个批次（种子 {seed}）时")
        self.expected, self.losses, self.reference = _reference_epoch(seed, count)
        self.model, optimizer, batches = _training_run(seed, count)
        self.initial = [p.detach().clone() for p in self.model.parameters()]
        graphs = weakref.WeakSet()
        saved = []  # (the forward that saved it, a weak reference to what the judge's hook kept)
        self.graphs_during, self.saved_during, self.packed = [], [], []

        def before(module, args):
            gc.collect()
            self.graphs_during.append(len(graphs))
            self.saved_during.append(sum(ref() is not None for _, ref in saved))
            self.packed.append(0)

        def after(module, args, output):
            if output.grad_fn is not None:
                sentinel = _Sentinel()
                output.grad_fn.register_hook(sentinel)
                graphs.add(sentinel)

        def pack(tensor):
            kept = tensor.detach()  # the hook keeps no reference of its own: the graph decides how long it lives
            if self.packed:
                self.packed[-1] += 1
            saved.append((len(self.packed), weakref.ref(kept)))
            return kept

        self.model[0].register_forward_pre_hook(before)
        self.model[0].register_forward_hook(after)
        with collecting_only_what_follows():
            with (
                explained(
                    "second time",
                    (
                        "the backward pass ran through a graph that an earlier backward pass had already freed",
                        "反向传播走进了一张已经被之前的反向传播释放过的图",
                    ),
                    (
                        "one loss.backward() per batch, on that batch's loss",
                        "每个批次一次 loss.backward()，只对这个批次的损失",
                    ),
                    (
                        "the tensor you called backward() on holds earlier batches' graphs "
                        "(a total summed as a tensor?): call backward() only on each batch's own loss, and sum "
                        "the losses with loss.item()",
                        "你调用 backward() 的那个张量挂着之前批次的图（用张量累加的总损失？）："
                        "只对每个批次自己的损失调用 backward()，累加损失用 loss.item()",
                    ),
                ),
                torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor),
                autograd_passes() as passes,
            ):
                self.found = solution.train_epoch(self.model, optimizer, batches)
            self.retained = [found.retain_graph for found in passes]
            self.grads = [found for found in passes if found.kind != "backward()"]
            gc.collect()
            self.graphs_after = len(graphs)


def _returns_a_float(run):
    found = run.found
    if isinstance(found, torch.Tensor) and found.grad_fn is not None:
        held, divided = _loss_nodes(found), type(found.grad_fn).__name__ == "DivBackward0"
        raise Fail(
            f"train_epoch returned a tensor with grad_fn={type(found.grad_fn).__name__}: it holds every batch's "
            f"graph ({held} batch losses hang below it) for as long as anyone keeps the returned value",
            f"train_epoch 返回了带 grad_fn={type(found.grad_fn).__name__} 的张量：它挂着每个批次的计算图"
            f"（下面挂着 {held} 个批次的损失），返回值被留多久，这些图就活多久",
            expected=("a Python float", "一个 Python float"),
            found=shown(found),
            hint_en=(
                "dividing is right, but the total was summed as a tensor, and the quotient still carries its graph: "
                if divided
                else "`total_loss += loss` puts every batch's graph under total_loss: "
            )
            + "add loss.item() instead, a float that ends the graph with its batch, and divide by the number of "
            "batches",
            hint_zh=(
                "除法没错，但总和是用张量累加的，商照样带着它的图："
                if divided
                else "`total_loss += loss` 把每个批次的图都挂到 total_loss 下面："
            )
            + "改为累加 loss.item()，它是个 float，图随这个批次一起结束；最后除以批次数",
        )
    run.value = _a_float(
        found,
        ("a Python float", "一个 Python float"),
        (
            "train_epoch returned a tensor; it has no graph, but the task asks for a Python float",
            "train_epoch 返回了张量；它虽然不带计算图，但题目要的是 Python float",
        ),
        (
            "sum loss.item() of each batch: a float from the start, no tensor to convert at the end",
            "累加每个批次的 loss.item()：从一开始就是 float，最后不用再转换",
        ),
        (
            "train_epoch must return the epoch's mean loss as a Python float",
            "train_epoch 应当以 Python float 返回这个 epoch 的平均损失",
        ),
        (
            "end the function with `return total / len(batches)`, where total sums loss.item()",
            "函数最后 `return total / len(batches)`，其中 total 累加的是 loss.item()",
        ),
    )


def _mean_loss(run):
    found, losses = run.value, run.losses
    if math.isclose(found, run.expected, rel_tol=1e-5, abs_tol=1e-7):
        return
    if math.isclose(found, sum(losses), rel_tol=1e-5):
        hint_en, hint_zh = (
            f"that is the sum of the {len(losses)} losses: divide by len(batches)",
            f"这是 {len(losses)} 个损失之和：再除以 len(batches)",
        )
    elif all(torch.equal(p, q) for p, q in zip(run.model.parameters(), run.initial)):
        hint_en, hint_zh = (
            "the model did not train at all: keep zero_grad, loss.backward() and optimizer.step() "
            "for every batch; the fix is only in how the loss is summed",
            "模型根本没有训练：每个批次的 zero_grad、loss.backward()、optimizer.step() 都要保留；"
            "要改的只是损失怎么累加",
        )
    elif math.isclose(found, losses[-1], rel_tol=1e-5):
        hint_en, hint_zh = (
            "that is the last batch's loss alone: add every batch's loss.item(), then divide",
            "这只是最后一个批次的损失：把每个批次的 loss.item() 都加起来，再求平均",
        )
    else:
        hint_en = (
            "average the losses the loop computed, each taken before its optimizer.step(), over the "
            "batches you are given; keep the starter's loss function and do not recompute anything after "
            "the epoch"
        )
        hint_zh = (
            "对循环里算出的损失求平均（每个都在它的 optimizer.step() 之前取值），批次就是传进来的那些；"
            "保留起始文件的损失函数，epoch 结束后不要重新计算"
        )
    raise Fail(
        *_in(run.said, ("the returned value is not this epoch's mean loss", "返回值不是这个 epoch 的平均损失")),
        expected=f"{run.expected:.6f}",
        found=f"{found:.6f}",
        hint_en=hint_en,
        hint_zh=hint_zh,
    )


def _trained(run):
    after = list(run.model.parameters())
    difference = max((p - q).abs().max().item() for p, q in zip(after, run.reference.parameters()))
    if difference > 1e-6:
        unchanged = all(torch.equal(p, q) for p, q in zip(after, run.initial))
        raise Fail(
            *_in(
                run.said,
                (
                    "the parameters differ from those of the training loop in the starter",
                    "参数和起始文件里的训练循环训练出来的不一样",
                ),
            ),
            expected=(
                "the parameters after one epoch of zero_grad, forward, backward(), step per batch",
                "每个批次 zero_grad、前向、backward()、step 走完一个 epoch 之后的参数",
            ),
            found=("the initial parameters: nothing was trained", "初始参数：根本没有训练")
            if unchanged
            else (f"parameters off by up to {difference:.2g}", f"参数最多相差 {difference:.2g}"),
            hint_en="the fix is only in how the loss is summed: keep zero_grad, loss.backward() and "
            "optimizer.step() for every batch, and no retain_graph",
            hint_zh="要改的只是损失怎么累加：每个批次的 zero_grad、loss.backward()、optimizer.step() 都保留，"
            "也不要 retain_graph",
        )


def _no_graph_after(run):
    if run.graphs_after:
        raise Fail(
            *_in(
                run.said,
                (
                    f"after train_epoch returned, {run.graphs_after} batch graphs are still alive "
                    "(something outside the function still holds the losses)",
                    f"train_epoch 返回之后，仍有 {run.graphs_after} 个批次的计算图活着（函数外面还有东西拿着这些损失）",
                ),
            ),
            expected="0",
            found=str(run.graphs_after),
            hint_en="keep only floats: loss.item()",
            hint_zh="只保留 float：loss.item()",
        )


def _no_graph_during(run):
    most = max(run.graphs_during, default=0)
    if most > 1:  # the previous batch's graph lives until `loss` is rebound: that one is fine
        raise Fail(
            *_in(
                run.said,
                (
                    f"during the epoch up to {most} earlier batches' graphs were alive at once: "
                    "something kept each batch's loss (a tensor total, a list of losses)",
                    f"epoch 进行中最多同时有 {most} 个之前批次的计算图活着：有东西留住了每个批次的损失"
                    "（用张量累加的总损失，或者存损失的列表）",
                ),
            ),
            expected=(
                "at most 1, the previous batch's, until `loss` is rebound",
                "至多 1 个：上一个批次的，直到 `loss` 被重新赋值",
            ),
            found=", ".join(map(str, run.graphs_during)),
            hint_en="add loss.item() each batch; converting once at the end still keeps every graph until then",
            hint_zh="每个批次加 loss.item()；最后才转换的话，在那之前每张图都还活着",
        )


def _one_forward_per_batch(run):
    if len(run.packed) != run.count:
        raise Fail(
            *_in(
                run.said,
                (
                    f"the judge saw {len(run.packed)} forwards of the model's first layer for "
                    f"{run.count} batches, so it cannot count what each forward left alive",
                    f"{run.count} 个批次，评测却看到模型第一层做了 {len(run.packed)} 次前向，"
                    "没法数清每次前向留下了什么",
                ),
            ),
            expected=(f"{run.count}, one per batch", f"{run.count} 次，每个批次一次"),
            found=str(len(run.packed)),
            hint_en="keep the starter's loop: one loss = F.mse_loss(model(x), y) per batch, calling "
            "model(x), not a layer's or the model's forward method directly",
            hint_zh="保持起始文件的循环：每个批次一次 loss = F.mse_loss(model(x), y)，调用 model(x)，"
            "不要直接调用某一层或模型的 forward 方法",
        )


def _no_retain_graph(run):
    if run.grads:
        raise Fail(
            *_in(
                run.said,
                (
                    f"{len(run.grads)} of the {len(run.retained)} backward passes were not backward(): "
                    "the task keeps the starter's loss.backward()",
                    f"{len(run.retained)} 次反向传播里有 {len(run.grads)} 次不是 backward()："
                    "题目要求保留起始文件的 loss.backward()",
                ),
            ),
            expected=("loss.backward() in every batch", "每个批次都是 loss.backward()"),
            found=counted(run.grads),
            hint_en="keep loss.backward(): it fills .grad itself; the fix is only in how the loss is summed",
            hint_zh="保留 loss.backward()：它自己会填好 .grad；要改的只是损失怎么累加",
        )
    retained = sum(run.retained)
    if retained:
        raise Fail(
            *_in(
                run.said,
                (
                    f"{retained} of the {len(run.retained)} backward passes had retain_graph=True: "
                    "the task keeps backward() without retain_graph",
                    f"{len(run.retained)} 次反向传播里有 {retained} 次带了 retain_graph=True："
                    "题目要求 backward() 不带 retain_graph",
                ),
            ),
            expected=("retain_graph=False in every backward pass", "每次反向传播都是 retain_graph=False"),
            found=(
                f"retain_graph=True in {retained} of {len(run.retained)}",
                f"{len(run.retained)} 次里有 {retained} 次 retain_graph=True",
            ),
            hint_en="call loss.backward() with no arguments: nothing here goes through a graph twice, and "
            "deleting the loss afterwards does not make retain_graph needed",
            hint_zh="直接调用 loss.backward()，不带参数：这里没有哪张图要走第二遍；事后 del 损失张量，"
            "也不说明需要 retain_graph",
        )


def _hooks_saw_the_saved_tensors(run):
    blind = [k for k, n in enumerate(run.packed, start=1) if n == 0]
    if blind:
        raise Fail(
            *_in(
                run.said,
                (
                    f"the judge's saved_tensors_hooks saw nothing saved in forward "
                    f"{', '.join(map(str, blind))}, though training saves tensors for backward: "
                    "hooks of your own replaced them, and what your graphs keep cannot be counted",
                    f"第 {'、'.join(map(str, blind))} 次前向里，评测的 saved_tensors_hooks 没看到任何被保存的张量，"
                    "而训练一定会为反向传播保存张量：你自己的钩子替换了它们，你的图留住了什么就没法数了",
                ),
            ),
            expected=("tensors saved in every forward", "每次前向都有张量被保存"),
            found=", ".join(map(str, run.packed)),
            hint_en="remove your own saved_tensors_hooks: the exercise needs none",
            hint_zh="去掉你自己的 saved_tensors_hooks：这道题用不着它们",
        )


def _saved_tensors_freed(run):
    kept = [(k, n) for k, n in enumerate(run.saved_during, start=1) if n]
    if kept:
        forward, number = kept[0]
        raise Fail(
            *_in(
                run.said,
                (
                    f"when forward {forward} began, {number} tensors saved by earlier forwards were "
                    "still alive: each batch's backward() did not free what its forward saved "
                    "(retain_graph=True?), or something kept those tensors",
                    f"第 {forward} 次前向开始时，之前的前向保存的张量还有 {number} 个活着："
                    "每个批次的 backward() 没有释放它的前向保存的张量（retain_graph=True？），"
                    "或者有东西留住了它们",
                ),
            ),
            expected=(
                "0 when each forward begins (a plain backward() frees what its forward saved)",
                "每次前向开始时都是 0（普通的 backward() 会释放它的前向保存的张量）",
            ),
            found=", ".join(map(str, run.saved_during)),
            hint_en="call loss.backward() without retain_graph: only the float total has to outlive the batch; "
            "with retain_graph=True every step's graph lives through the next forward",
            hint_zh="调用 loss.backward() 时不要 retain_graph：要活过这个批次的只有 float 总和；"
            "加了 retain_graph=True，每一步的图都要活过下一次前向",
        )


@exercise(
    "retain-graph/total-loss",
    en="an epoch's mean loss as a float, with no graph kept alive",
    zh="一个 epoch 的平均损失：返回 float，不留下任何计算图",
)
def total_loss(solution, check):
    runs = []
    for seed, count in EPOCHS:
        check(
            f"with {count} batches (seed {seed}), train_epoch(model, optimizer, batches) returns a Python float",
            f"{count} 个批次（种子 {seed}）时，train_epoch(model, optimizer, batches) 返回一个 Python float",
        )
        runs.append(_Epoch(solution, seed, count))
        _returns_a_float(runs[-1])

    for en, zh, method in (
        (
            "in each of these epochs, the value is the mean of the epoch's batch losses",
            "以上每个 epoch，返回值都是这个 epoch 各批次损失的平均值",
            _mean_loss,
        ),
        (
            "the model's parameters are those of the starter's training loop after the epoch",
            "epoch 之后，模型参数和起始文件的训练循环训练出来的一样",
            _trained,
        ),
        ("the judge sees one forward of the model per batch", "评测每个批次看到模型的一次前向", _one_forward_per_batch),
        (
            "once train_epoch has returned, no batch's graph is alive",
            "train_epoch 返回之后，没有任何批次的计算图还活着",
            _no_graph_after,
        ),
        (
            "during the epoch, no earlier batch's graph is kept alive (nothing keeps each batch's loss)",
            "epoch 进行中，不留住之前批次的计算图（没有东西留住每个批次的损失）",
            _no_graph_during,
        ),
        (
            "the judge's saved_tensors_hooks see the tensors each forward saves",
            "评测的 saved_tensors_hooks 能看到每次前向保存的张量",
            _hooks_saw_the_saved_tensors,
        ),
        (
            "when each forward begins, what earlier forwards saved for backward has been freed",
            "每次前向开始时，之前的前向为反向传播保存的张量都已释放",
            _saved_tensors_freed,
        ),
        (
            "every backward pass is a backward() without retain_graph=True",
            "每次反向传播都是不带 retain_graph=True 的 backward()",
            _no_retain_graph,
        ),
    ):
        check(en, zh)
        for run in runs:
            method(run)


# --- retain-graph/eval-accuracy ---

CLASSES = 3
# Two classifiers (seed of the weights, the running statistics and the batches); the last batch is
# shorter, as a DataLoader's usually is, so that the mean of per-batch accuracies is another number.
CLASSIFIERS = (1, 2)
SIZES = (20, 20, 20, 20, 7)


def _classifier(seed):
    """A classifier with batch norm and dropout, so that eval mode changes its outputs, and its batches."""
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, CLASSES))
    # Running statistics of a model that has trained for a while, so that eval mode matters.
    model[1].running_mean.uniform_(-0.5, 0.5)
    model[1].running_var.uniform_(0.5, 2.0)
    batches = []
    for size in SIZES:
        x = torch.randn(size, 6)
        batches.append((x, (x[:, 0] + x[:, 1] > 0).long() + (x[:, 2] > 1).long()))
    return model, batches


def _in_forwards(count: int, forwards: int, what_en: str, what_zh: str) -> tuple[str, str]:
    """'training mode in 3 of 5 forwards', in English and in Chinese."""
    return f"{what_en} in {count} of {forwards} forwards", f"{forwards} 次前向里有 {count} 次{what_zh}"


def _accuracies(model, batches):
    """(the fraction of all samples predicted right, the mean of the per-batch fractions), in eval mode."""
    model = copy.deepcopy(model).eval()
    with torch.no_grad():
        right = [(model(x).argmax(dim=1) == y).sum().item() for x, y in batches]
    per_batch = [r / len(y) for r, (_, y) in zip(right, batches)]
    return sum(right) / sum(len(y) for _, y in batches), sum(per_batch) / len(batches)


class _Results(TorchCalls):
    """TorchCalls that also keeps the name of every call whose result carries a grad_fn: an operation
    recorded on a graph, whatever saved_tensors_hooks were active and however the model was called."""

    def __init__(self):
        super().__init__()
        self.recorded: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = super().__torch_function__(func, types, args, kwargs)
        results = result if isinstance(result, (tuple, list)) else (result,)
        if any(isinstance(item, torch.Tensor) and item.grad_fn is not None for item in results):
            self.recorded.append(getattr(func, "__name__", "?"))
        return result

    def __exit__(self, *exc):
        self.calls.clear()  # the tensors TorchCalls keeps are not needed here
        return super().__exit__(*exc)


def _records(args, kwargs) -> bool:
    """Whether autograd may record an aten operation with these arguments on a graph: grad mode is on
    and an argument requires grad."""
    return torch.is_grad_enabled() and any(
        isinstance(value, torch.Tensor) and value.requires_grad for value in tree_flatten((args, kwargs or {}))[0]
    )


def _outputs(result) -> list[torch.Tensor]:
    return [value for value in tree_flatten(result)[0] if isinstance(value, torch.Tensor)]


def _twin(value):
    """A meta tensor with value's size, strides, dtype and requires_grad: no data, nothing computed."""
    if not isinstance(value, torch.Tensor):
        return value
    twin = torch.empty_strided(value.size(), value.stride(), dtype=value.dtype, device="meta")
    return twin.requires_grad_() if value.requires_grad else twin


def _on_twins(func, args, kwargs) -> bool | None:
    """Whether autograd records func with these arguments on a graph, asked of autograd itself before
    func runs: the operation, run on meta twins of its arguments with grad mode on, gives an output a
    grad_fn (detach, zeros_like, argmax or == on a parameter give none). It runs in a thread of its
    own, where no dispatcher key is excluded, as inside an operation autograd is, and where no torch
    function, dispatch mode or saved-tensor hook of the solution's or the judge's sees it. None when
    it cannot run on the twins (no meta kernel; in place on a tensor that requires grad, as a twin is a
    leaf)."""
    answer = []

    def ask():
        try:
            with (
                torch.enable_grad(),
                torch._C.DisableTorchFunction(),
                torch.autograd.graph.saved_tensors_hooks(_dropped, _dropped),
            ):
                twins, twin_kwargs = tree_map(_twin, (args, kwargs or {}))
                answer.append(any(output.grad_fn is not None for output in _outputs(func(*twins, **twin_kwargs))))
        except Exception:  # whatever fails on meta tensors leaves the question to the real outputs
            pass

    thread = threading.Thread(target=ask)
    thread.start()
    thread.join()
    return answer[0] if answer else None


def _dropped(tensor):
    return None


def _ran(ran: list, func, args, kwargs, run):
    """Runs the operation (run()) and, when autograd may record it, notes in `ran` its name and whether
    it was recorded: asked of the twins, or else of its real outputs, kept for _recorded."""
    if not _records(args, kwargs):
        return run()
    recorded = _on_twins(func, args, kwargs)
    result = run()
    ran.append((func.overloadpacket.__name__, recorded, _outputs(result) if recorded is None else []))
    return result


def _recorded(ran) -> list[str]:
    """The names of the operations in `ran` that autograd recorded on a graph."""
    return [
        name
        for name, recorded, outputs in ran
        if recorded or (recorded is None and any(output.grad_fn is not None for output in outputs))
    ]


class _Recording(TorchDispatchMode):
    """Below the Python layer, where TorchScript and torch._C.DisableTorchFunction() do not reach: every
    aten operation run while grad mode is on with an argument that requires grad, and whether autograd
    recorded it on a graph; `recorded` names those it did."""

    def __init__(self):
        super().__init__()
        self.ran: list = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return _ran(self.ran, func, args, kwargs, lambda: func(*args, **(kwargs or {})))

    @property
    def recorded(self) -> list[str]:
        return _recorded(self.ran)


class _Watched(nn.Parameter):
    """A parameter whose class sees, at the dispatcher, every aten operation run on it, in any thread
    (a dispatch mode and grad mode are per thread, a class is not): while `ran` is a list, each one run
    while grad mode is on, and whether autograd recorded it, for _recorded."""

    ran: list | None = None

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        def run():
            with torch._C._DisableTorchDispatch():  # run the operation itself on the same tensors
                return func(*args, **(kwargs or {}))

        ran = cls.ran
        return run() if ran is None else _ran(ran, func, args, kwargs, run)


class _Evaluation:
    """One call of evaluate on a fresh classifier, watched: the backward passes, the tensors saved for
    backward (through the judge's saved_tensors_hooks), the torch calls whose result has a grad_fn,
    and the mode of the batch norm and of the dropout at each of their forwards. Those observers are
    thread-local; a forward hook on every module runs in whichever thread calls it, and notes each
    module whose output has a grad_fn, and the model's parameters are _Watched ones, which note each
    operation recorded on them in any thread, however the module was called."""

    def __init__(self, solution, number, seed):
        self.said = (f"classifier {number}", f"分类器 {number}")
        self.model, self.batches = _classifier(seed)
        self.model.train()  # a training loop calls evaluate between epochs
        self.expected, self.batch_mean = _accuracies(self.model, self.batches)
        self.saved, self.norm_modes, self.dropout_modes, self.model_calls, self.graphed = [], [], [], [], []
        for module in self.model.modules():
            for name, parameter in list(module._parameters.items()):
                module._parameters[name] = _Watched(parameter.detach(), requires_grad=parameter.requires_grad)
        anywhere = _Watched.ran = []

        def pack(tensor):
            self.saved.append(tuple(tensor.shape))
            return tensor.detach()  # keep no reference cycle alive through the hook

        hooks = [
            self.model.register_forward_pre_hook(lambda module, args: self.model_calls.append(1)),
            self.model[1].register_forward_pre_hook(lambda module, args: self.norm_modes.append(module.training)),
            self.model[3].register_forward_pre_hook(lambda module, args: self.dropout_modes.append(module.training)),
        ]
        for name, module in self.model.named_modules():
            hooks.append(
                module.register_forward_hook(
                    lambda module, args, output, name=name or "model": (
                        self.graphed.append(f"{name}: {type(output.grad_fn).__name__}")
                        if isinstance(output, torch.Tensor) and output.grad_fn is not None
                        else None
                    )
                )
            )
        grad_mode = torch.is_grad_enabled()
        try:
            with (
                explained(
                    "does not require grad",
                    (
                        "a backward() call raised: an accuracy has no gradient, and evaluation needs no backward pass",
                        "backward() 报错了：准确率没有梯度，评估也根本不需要反向传播",
                    ),
                    (
                        "evaluate returns the accuracy, with no backward() anywhere",
                        "evaluate 返回准确率，全程没有 backward()",
                    ),
                    (
                        "argmax and == are not differentiable, so the accuracy has no grad_fn and backward() "
                        "has nothing to go back through; and evaluation updates nothing: delete the "
                        "backward() call and run the loop under `with torch.no_grad():`",
                        "argmax 和 == 不可导，所以准确率没有 grad_fn，backward() 无路可走；评估也不更新任何参数："
                        "删掉 backward()，把循环放进 `with torch.no_grad():`",
                    ),
                ),
                autograd_passes() as passes,
                _Results() as results,
                _Recording() as below,
                torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor),
            ):
                self.found = solution.evaluate(self.model, self.batches)
        finally:
            _Watched.ran = None
            for hook in hooks:
                hook.remove()
            # What evaluate left for the next epoch; then grad mode as it was, for the judge's next run.
            self.grad_mode, self.inference_mode = torch.is_grad_enabled(), torch.is_inference_mode_enabled()
            torch.set_grad_enabled(grad_mode)
        self.frozen = [name for name, p in self.model.named_parameters() if not p.requires_grad]
        self.passes, self.recorded = list(passes), results.recorded
        # Names only: the outputs kept for _recorded go with `below` and `anywhere`.
        self.below, self.anywhere = below.recorded, _recorded(anywhere)


def _returns_an_accuracy(run):
    run.value = _a_float(
        run.found,
        ("a Python float between 0 and 1", "0 到 1 之间的 Python float"),
        ("evaluate returned a tensor, not a Python float", "evaluate 返回的是张量，不是 Python float"),
        (
            "count the correct predictions with .sum().item() and divide by the number of samples",
            "用 .sum().item() 数出预测对的个数，再除以样本数",
        ),
        ("evaluate must return the accuracy as a Python float", "evaluate 应当以 Python float 返回准确率"),
        ("return correct / total, both counted over every batch", "返回 correct / total，两者都是对所有批次计数"),
    )


def _no_backward_pass(run):
    if run.passes:
        raise Fail(
            *_in(
                run.said,
                (
                    "a backward pass ran during evaluation: evaluation has no loss and needs no gradient",
                    "评估期间跑了反向传播：评估没有损失，也用不着梯度",
                ),
            ),
            expected=("no backward pass", "没有反向传播"),
            found=counted(run.passes),
            hint_en="remove every backward() and torch.autograd.grad() from evaluate",
            hint_zh="去掉 evaluate 里所有的 backward() 和 torch.autograd.grad()",
        )


def _no_grad_set(run):
    with_grad = [name for name, p in run.model.named_parameters() if p.grad is not None]
    if with_grad:
        raise Fail(
            *_in(
                run.said,
                (
                    "a backward pass ran during evaluation and left gradients in the model",
                    "评估期间跑了反向传播，在模型里留下了梯度",
                ),
            ),
            expected=("every .grad still None", "所有 .grad 仍是 None"),
            found=(f".grad set on {', '.join(with_grad)}", f"{', '.join(with_grad)} 有了 .grad"),
            hint_en="evaluation has no loss to call backward() on: remove every backward()",
            hint_zh="评估不需要对任何损失调用 backward()：去掉所有 backward()",
        )


def _nothing_saved(run):
    if run.saved:
        raise Fail(
            *_in(
                run.said,
                (
                    f"the forward passes recorded a graph: {len(run.saved)} tensors were saved for a "
                    "backward pass that evaluation never needs",
                    f"前向记录了计算图：为评估根本用不到的反向传播保存了 {len(run.saved)} 个张量",
                ),
            ),
            expected="0",
            found=str(len(run.saved)),
            hint_en="wrap the loop in `with torch.no_grad():`: nothing is recorded and nothing is saved",
            hint_zh="把循环放进 `with torch.no_grad():`：什么都不记录，也什么都不保存",
        )


def _nothing_recorded(run):
    if run.recorded:
        names = ", ".join(sorted(set(run.recorded)))
        bypassed = (
            "; model.forward(x) was called instead of model(x), which skips the model's hooks, not the recording"
            if run.dropout_modes and not run.model_calls
            else "",
            "；调用的是 model.forward(x) 而不是 model(x)，它绕过的是模型的钩子，不是记录"
            if run.dropout_modes and not run.model_calls
            else "",
        )
        raise Fail(
            *_in(
                run.said,
                (
                    f"{len(run.recorded)} torch operations returned a tensor with a grad_fn ({names}): "
                    f"a graph was recorded, whatever hooks were active{bypassed[0]}",
                    f"有 {len(run.recorded)} 次 torch 运算返回了带 grad_fn 的张量（{names}）："
                    f"记录了计算图，不论当时有什么钩子{bypassed[1]}",
                ),
            ),
            expected=("no result with a grad_fn", "没有带 grad_fn 的结果"),
            found=(f"{len(run.recorded)} results with a grad_fn", f"{len(run.recorded)} 个带 grad_fn 的结果"),
            hint_en="saved_tensors_hooks of your own hide the saved tensors, not the graph, and calling "
            "model.forward(x) instead of model(x) records it all the same: run the loop under "
            "`with torch.no_grad():`",
            hint_zh="自己套的 saved_tensors_hooks 只能藏起保存的张量，藏不住计算图；用 model.forward(x) 代替 "
            "model(x) 也照样记录：把循环放进 `with torch.no_grad():`",
        )
    if run.below:
        names = ", ".join(sorted(set(run.below)))
        raise Fail(
            *_in(
                run.said,
                (
                    f"{len(run.below)} aten operations gave their result a grad_fn ({names}): a "
                    "graph was recorded below the Python layer, where TorchScript or a disabled "
                    "__torch_function__ hides it",
                    f"有 {len(run.below)} 次 aten 运算给结果接上了 grad_fn（{names}）："
                    "在 Python 层之下记录了计算图，TorchScript 或关掉的 __torch_function__ 只是让它在 "
                    "Python 层看不见",
                ),
            ),
            expected=("no operation recorded on a graph", "没有运算被记录到计算图上"),
            found=(f"{len(run.below)} recorded", f"记录了 {len(run.below)} 次"),
            hint_en="however the model is run, run it under `with torch.no_grad():`",
            hint_zh="不论模型怎么运行，都放进 `with torch.no_grad():`",
        )
    if run.graphed:
        names = ", ".join(sorted(set(run.graphed)))
        raise Fail(
            *_in(
                run.said,
                (
                    f"{len(run.graphed)} calls of the model's modules returned a tensor with a grad_fn "
                    f"({names}): a graph was recorded where the judge's grad-mode observers do not "
                    "reach, which are thread-local (a worker thread?)",
                    f"模型的模块有 {len(run.graphed)} 次调用返回了带 grad_fn 的张量（{names}）："
                    "在评测观察梯度模式的手段够不到的地方记录了计算图，这些手段只管当前线程（用了工作线程？）",
                ),
            ),
            expected=("no module output with a grad_fn", "没有模块的输出带 grad_fn"),
            found=(f"{len(run.graphed)} outputs with a grad_fn", f"{len(run.graphed)} 个输出带 grad_fn"),
            hint_en="grad mode is per thread: a `with torch.no_grad():` in the caller does not reach a worker "
            "thread; run the loop in evaluate's own thread, under `with torch.no_grad():`",
            hint_zh="梯度模式是按线程算的：调用方的 `with torch.no_grad():` 管不到工作线程；"
            "就在 evaluate 自己的线程里跑循环，放进 `with torch.no_grad():`",
        )
    if run.anywhere:
        names = ", ".join(sorted(set(run.anywhere)))
        raise Fail(
            *_in(
                run.said,
                (
                    f"{len(run.anywhere)} aten operations on the model's parameters gave their result "
                    f"a grad_fn ({names}): a graph was recorded where the judge's other grad-mode "
                    "observers do not reach, which are thread-local (a worker thread?)",
                    f"模型参数上有 {len(run.anywhere)} 次 aten 运算给结果接上了 grad_fn（{names}）："
                    "在评测其他观察梯度模式的手段够不到的地方记录了计算图，这些手段只管当前线程"
                    "（用了工作线程？）",
                ),
            ),
            expected=("no operation on a parameter recorded on a graph", "参数上没有运算被记录到计算图上"),
            found=(f"{len(run.anywhere)} recorded", f"记录了 {len(run.anywhere)} 次"),
            hint_en="grad mode is per thread, and calling a layer's forward() skips its hooks, not the "
            "recording: run the loop in evaluate's own thread, under `with torch.no_grad():`",
            hint_zh="梯度模式是按线程算的，直接调用某一层的 forward() 绕过的是它的钩子，不是记录："
            "就在 evaluate 自己的线程里跑循环，放进 `with torch.no_grad():`",
        )


def _eval_mode(run):
    if not run.norm_modes and not run.dropout_modes:
        raise Fail(
            *_in(run.said, ("the model was never called", "模型一次也没有被调用")),
            expected=("one forward per batch", "每个批次一次前向"),
            found="0",
            hint_en="call model(x) for each (x, y) in batches",
            hint_zh="对 batches 里的每个 (x, y) 调用 model(x)",
        )
    parts_en, parts_zh = [], []
    for modes, name_en, name_zh, did_en, did_zh in (
        (run.dropout_modes, "dropout", "dropout", "it dropped units", "随机丢弃了神经元"),
        (
            run.norm_modes,
            "batch norm",
            "batch norm",
            "it used the batch's statistics and updated its running ones",
            "用了批次自己的统计量，还改写了累计统计量",
        ),
    ):
        if any(modes):
            found_en, found_zh = _in_forwards(sum(modes), len(modes), "training mode", "是训练模式")
            parts_en.append(f"{name_en}: {found_en} ({did_en})")
            parts_zh.append(f"{name_zh}：{found_zh}（{did_zh}）")
    if parts_en:
        raise Fail(
            *_in(
                run.said,
                (
                    "some forwards ran in training mode: " + "; ".join(parts_en),
                    "有的前向是在训练模式下跑的：" + "；".join(parts_zh),
                ),
            ),
            expected=("every module in eval mode during every forward", "每次前向时每个模块都在 eval 模式"),
            found=("; ".join(parts_en), "；".join(parts_zh)),
            hint_en="call model.eval() before the loop: it switches every module, where setting one module's "
            "mode leaves the others as they were; no_grad stops the recording, but it does not "
            "switch dropout and batch norm to evaluation",
            hint_zh="在循环之前调用 model.eval()：它会切换每个模块，只切一个模块的话其他模块保持原样；"
            "no_grad 只停止记录，并不会把 dropout 和 batch norm 切到评估行为",
        )


def _back_in_training(run):
    if not all(module.training for module in run.model.modules()):
        raise Fail(
            *_in(
                run.said,
                (
                    "evaluate left the model in eval mode; the next epoch would train without dropout",
                    "evaluate 把模型留在了 eval 模式；下一个 epoch 会在没有 dropout 的情况下训练",
                ),
            ),
            expected=(
                "model.training True, as it was when evaluate was called",
                "model.training 为 True，和调用 evaluate 时一样",
            ),
            found="model.training False",
            hint_en="end evaluate with model.train(), so training resumes in the right mode",
            hint_zh="在 evaluate 的最后调用 model.train()，让训练以正确的模式继续",
        )


def _ready_to_train(run):
    if not run.grad_mode or run.inference_mode:
        state_en = (
            "inference mode still on"
            if run.inference_mode
            else "grad mode still off (torch.is_grad_enabled() is False)"
        )
        state_zh = "推理模式还开着" if run.inference_mode else "梯度模式还关着（torch.is_grad_enabled() 为 False）"
        raise Fail(
            *_in(
                run.said,
                (
                    f"when evaluate returned, {state_en}: the next epoch's forwards would record no "
                    "graph, and its loss.backward() would raise",
                    f"evaluate 返回时{state_zh}：下一个 epoch 的前向不会记录计算图，它的 loss.backward() 会报错",
                ),
            ),
            expected=("grad mode on, as when evaluate was called", "梯度模式开着，和调用 evaluate 时一样"),
            found=(state_en, state_zh),
            hint_en="turn recording off with `with torch.no_grad():` around the loop: it switches grad mode "
            "back on when the block ends, where torch.set_grad_enabled(False) stays in force",
            hint_zh="用 `with torch.no_grad():` 包住循环来关掉记录：块一结束它就把梯度模式切回来；"
            "torch.set_grad_enabled(False) 则一直有效",
        )
    if run.frozen:
        raise Fail(
            *_in(
                run.said,
                (
                    f"when evaluate returned, {len(run.frozen)} parameters no longer required grad: "
                    "the next epoch could not train them",
                    f"evaluate 返回时，有 {len(run.frozen)} 个参数不再要求梯度：下一个 epoch 没法训练它们",
                ),
            ),
            expected=(
                "every parameter's requires_grad True, as when evaluate was called",
                "每个参数的 requires_grad 都是 True，和调用 evaluate 时一样",
            ),
            found=(
                f"requires_grad False on {', '.join(run.frozen)}",
                f"{', '.join(run.frozen)} 的 requires_grad 为 False",
            ),
            hint_en="leave requires_grad alone: `with torch.no_grad():` stops the recording for the loop "
            "and changes no parameter",
            hint_zh="别动 requires_grad：`with torch.no_grad():` 只在循环期间停止记录，不改任何参数",
        )


def _accuracy(run):
    found, expected = run.value, run.expected
    if math.isclose(found, expected, abs_tol=1e-6):  # float32 batch means may round in the 8th digit
        return
    total = sum(len(y) for _, y in run.batches)
    if found > 1:
        hint_en, hint_zh = (
            f"that looks like a count: divide by the number of samples, {total}",
            f"这像是个计数：再除以样本数 {total}",
        )
    elif math.isclose(found, run.batch_mean, abs_tol=1e-6):
        hint_en = (
            f"that is the mean of the per-batch accuracies; the last batch has {len(run.batches[-1][1])} "
            f"samples, not {len(run.batches[0][1])}: count the right predictions over every batch, then divide "
            f"by all {total} samples"
        )
        hint_zh = (
            f"这是各批次准确率的平均值；最后一个批次只有 {len(run.batches[-1][1])} 个样本，不是 "
            f"{len(run.batches[0][1])} 个：在所有批次上数出预测对的个数，再除以全部 {total} 个样本"
        )
    else:
        hint_en = "predictions are model(x).argmax(dim=1); count those equal to y over every batch, then divide"
        hint_zh = "预测是 model(x).argmax(dim=1)；在所有批次上数出和 y 相等的个数，再除以样本总数"
    raise Fail(
        *_in(
            run.said,
            (
                "the returned accuracy is not this model's accuracy on its batches",
                "返回的准确率不是这个模型在它的批次上的准确率",
            ),
        ),
        expected=f"{expected:.4f}",
        found=f"{found:.4f}",
        hint_en=hint_en,
        hint_zh=hint_zh,
    )


@exercise("retain-graph/eval-accuracy", en="an evaluation loop that builds no graph", zh="不建计算图的评估循环")
def eval_accuracy(solution, check):
    runs = []
    for number, seed in enumerate(CLASSIFIERS, start=1):
        check(
            f"with classifier {number} (seed {seed}, batches of {', '.join(map(str, SIZES))}), "
            "evaluate(model, batches) runs and returns a Python float",
            f"分类器 {number}（种子 {seed}，批次大小 {'、'.join(map(str, SIZES))}）：evaluate(model, batches) "
            "能运行完，并返回 Python float",
        )
        runs.append(_Evaluation(solution, number, seed))
        _returns_an_accuracy(runs[-1])

    for en, zh, method in (
        (
            "in each of these runs, no backward pass ran while evaluate ran",
            "以上每次运行，evaluate 运行期间都没有反向传播",
            _no_backward_pass,
        ),
        ("no parameter has a .grad afterwards", "之后没有任何参数带 .grad", _no_grad_set),
        (
            "no tensor was saved for backward while evaluate ran",
            "evaluate 运行期间，没有任何张量被保存给反向传播",
            _nothing_saved,
        ),
        (
            "no torch operation returned a tensor with a grad_fn, seen at the Python layer and at the dispatcher, "
            "whatever hooks were active; in any thread, no call of the model's modules and no operation on its "
            "parameters returned a tensor with a grad_fn",
            "没有任何一次 torch 运算返回带 grad_fn 的张量，在 Python 层和 dispatcher 上看都是如此，不论当时有什么钩子；"
            "不论在哪个线程里，模型的模块和模型参数上的运算都没有返回带 grad_fn 的张量",
            _nothing_recorded,
        ),
        (
            "every forward ran in eval mode (dropout off, batch norm on its running statistics)",
            "每次前向都在 eval 模式下进行（dropout 关闭，batch norm 用累计的统计量）",
            _eval_mode,
        ),
        (
            "the accuracy is the fraction of all samples whose largest logit is their label",
            "准确率等于全部样本中最大 logit 正好是标签的样本所占的比例",
            _accuracy,
        ),
        (
            "the model is back in training mode when evaluate returns",
            "evaluate 返回时，模型回到了训练模式",
            _back_in_training,
        ),
        (
            "when evaluate returns, grad mode is on and every parameter still requires grad",
            "evaluate 返回时，梯度模式开着，每个参数也仍然要求梯度",
            _ready_to_train,
        ),
    ):
        check(en, zh)
        for run in runs:
            method(run)
