"""Exercises of the chapter graph-memory."""

import gc
import numbers
import weakref

import torch
from torch import nn

from exercise_judge.checking import Fail, exercise, times
from exercise_judge.checks._shared import collecting_only_what_follows
from exercise_judge.spies import autograd_passes, counted


def model_and_input(rows, input_requires_grad=False):
    """Linear-ReLU layers: each ReLU's output is saved by the ReLU and again by the next Linear."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 8))
    return model, torch.randn(rows, 16, requires_grad=input_requires_grad)


def accounts(model, x):
    """What one forward saves: bytes summed over the hook calls, and the distinct storages."""
    calls, storages, kept = [], {}, []

    def pack(t):
        calls.append(t.numel() * t.element_size())
        storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        kept.append(t.detach())  # alive until the count is done: no address is reused meanwhile
        return kept[-1]

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        model(x)
    parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
    activations = sum(size for pointer, size in storages.items() if pointer not in parameters)
    return {
        "calls": len(calls),
        "call_bytes": sum(calls),
        "storages": len(storages),
        "bytes": sum(storages.values()),
        "activation_bytes": activations,
    }


def as_bytes(value):
    """The reader's answer as an int, or a Fail that says what came back instead."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    found = (
        (f"a tensor of shape {list(value.shape)}", f"形状为 {list(value.shape)} 的张量")
        if isinstance(value, torch.Tensor)
        else (f"{value!r} ({type(value).__name__})"[:80], f"{value!r}（{type(value).__name__}）"[:80])
    )
    raise Fail(
        "saved_bytes must return a whole number of bytes",
        "saved_bytes 应当返回一个整数字节数",
        expected=("an int", "一个 int"),
        found=found,
        hint_en="add up storage.nbytes(), plain Python ints, and return the sum",
        hint_zh="把 storage.nbytes()（普通的 Python int）加起来，返回这个和",
    )


class Square(torch.autograd.Function):
    """x², saved with ctx.save_for_backward: a node with no _saved_* attributes to read."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * x * grad_output


class SquareLayer(nn.Module):
    def forward(self, x):
        return Square.apply(x)


class Halve(nn.Module):
    """h * 0.5: the node saves the Python number as a tensor (_saved_other) that pack never receives."""

    def forward(self, h):
        return h * 0.5


class SecondHalf(nn.Module):
    """The last half of the features: a view that starts inside its storage and covers half of it."""

    def forward(self, h):
        return h[:, h.shape[1] // 2 :]


class FirstHalf(nn.Module):
    """The first half of the features: a view that starts where its storage starts and stops short of its end."""

    def forward(self, h):
        return h[:, : h.shape[1] // 2]


class DetachedOutput(nn.Module):
    """Hands back its input cut off from the graph, whose output then has no grad_fn to walk from.
    The judge keeps the graph itself (in `kept`) until the call has returned."""

    def __init__(self):
        super().__init__()
        self.kept = []

    def forward(self, h):
        self.kept.append(h)
        return h.detach()


class SavesOutOfSight(nn.Module):
    """Saves tensors (tanh's output, and a custom Function's input) and hands back a result cut off
    from them: no module's output leads to the nodes that saved, and with torch functions' overrides
    disabled, no TorchFunctionMode sees the tensors in between either. Autograd records and packs as
    usual. The judge keeps those nodes alive (in `kept`) until the call has returned."""

    def __init__(self):
        super().__init__()
        self.kept = []

    def forward(self, h):
        with torch._C.DisableTorchFunction():
            y = Square.apply(torch.tanh(h))
        self.kept.append(y)
        return y.detach()


class GradientInside(nn.Module):
    """Takes a gradient during its own forward, as a gradient penalty does: tanh saves its output,
    and torch.autograd.grad runs tanh's node, which frees that output before forward returns unless
    the pack hook keeps it. pack received it, but no node holds it any more, and its address is free
    for a later tensor. Notes a weak reference to each tanh output's storage in `noted`, for StillAllocated."""

    def __init__(self, noted):
        super().__init__()
        self.noted = noted

    def note(self, y):
        self.noted.append(weakref.ref(y.untyped_storage()))
        return y

    def forward(self, h):
        (slope,) = torch.autograd.grad(self.note(torch.tanh(h)).sum(), h)
        return h * slope


class StillAllocated(nn.Module):
    """Last in the model, so still during forward: records how many of the storages in `noted` are
    still allocated. Only a pack hook that keeps what it received keeps them."""

    def __init__(self, noted):
        super().__init__()
        self.noted, self.alive = noted, []

    def forward(self, h):
        self.alive.append(sum(ref() is not None for ref in self.noted))
        return h


class OwnHooks(nn.Module):
    """Saves under saved_tensors_hooks of its own, as a non-reentrant checkpoint does: only the innermost
    hooks run, so the caller's pack never receives tanh's output, though tanh's node holds it. Then
    multiplies by a 0-dim tensor, which mul saves and which pack does receive."""

    def forward(self, h):
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            h = torch.tanh(h)
        return h * torch.tensor(0.5)


def watched_call(model, run):
    """run() once, recording the backward passes it asks for and whether a gradient reached the
    output of a forward of model (a forward hook marks each output)."""
    reached = []

    def mark(module, args, output):
        if output.requires_grad:
            output.register_hook(lambda grad: reached.append(True))

    handle = model.register_forward_hook(mark)
    try:
        with autograd_passes() as passes:
            run()
    finally:
        handle.remove()
    return passes, bool(reached)


def storages_alive_after(model, run):
    """run(), then count the storages of the submodules' outputs during it that are still
    allocated after a garbage collection: weak references to the storages themselves."""
    refs = []

    def note(module, args, output):
        refs.append(weakref.ref(output.untyped_storage()))

    handles = [module.register_forward_hook(note) for module in model.modules()]
    with collecting_only_what_follows():
        try:
            run()
        finally:
            for handle in handles:
                handle.remove()
        gc.collect()
    return sum(ref() is not None for ref in refs), len(refs)


def forwards_inside_hooks(model, run):
    """run(), recording for each forward of model whether a saved_tensors_hooks block was open."""
    hooks, depth, forwards = torch.autograd.graph.saved_tensors_hooks, [0], []
    enter, leave = hooks.__enter__, hooks.__exit__

    def counted_enter(self):
        depth[0] += 1
        return enter(self)

    def counted_leave(self, *args):
        depth[0] -= 1
        return leave(self, *args)

    handle = model.register_forward_pre_hook(lambda module, args: forwards.append(depth[0] > 0))
    hooks.__enter__, hooks.__exit__ = counted_enter, counted_leave
    try:
        run()
    finally:
        hooks.__enter__, hooks.__exit__ = enter, leave
        handle.remove()
    return forwards


def tensors_alive_after(run):
    """run(), then count the tensors it made that are still alive after a garbage collection."""
    with collecting_only_what_follows():
        run()
        gc.collect()
        return sum(1 for o in gc.get_objects() if issubclass(type(o), torch.Tensor))


@exercise(
    "graph-memory/saved-bytes",
    en="the memory one forward saves for backward: count storages, not hook calls",
    zh="一次前向为反向保存了多少内存：数存储，不数钩子调用",
)
def saved_bytes(solution, check):
    for rows, input_grad in ((4, False), (64, False), (4, True)):
        model, x = model_and_input(rows, input_grad)
        truth = accounts(model, x)
        input_en, input_zh = ("an x that requires grad", "要梯度的 x") if input_grad else ("x", "x")
        check(
            f"saved_bytes(model, {input_en}) with batch {rows}: {truth['storages']} distinct storages",
            f"saved_bytes(model, {input_zh})，批大小 {rows}：{truth['storages']} 块不同的存储",
        )
        found = as_bytes(solution.saved_bytes(model, x))
        if found == truth["bytes"]:
            continue
        if found == truth["call_bytes"]:
            found_text = (
                f"{found} bytes: numel() * element_size() summed over all {truth['calls']} hook calls",
                f"{found} 字节：把全部 {truth['calls']} 次钩子调用的 numel() * element_size() 加起来",
            )
            hint_en = (
                f"the hook ran {truth['calls']} times for {truth['storages']} storages: each ReLU saves its "
                f"output, and the next Linear saves the same tensor again as its input. Count each storage "
                f"once: key a dict by t.untyped_storage().data_ptr(), add untyped_storage().nbytes()"
            )
            hint_zh = (
                f"钩子调用了 {truth['calls']} 次，存储却只有 {truth['storages']} 块：每个 ReLU 保存自己的输出，"
                f"下一层 Linear 又把同一个张量当输入再保存一次。每块存储只算一次：用 "
                f"t.untyped_storage().data_ptr() 作字典的键，加 untyped_storage().nbytes()"
            )
        elif found == truth["activation_bytes"]:
            found_text = (
                f"{found} bytes: the activations only, without the weights",
                f"{found} 字节：只有激活，没有权重",
            )
            hint_en = (
                "the saved weights are references to the parameters' own storage, and leaving them out is "
                "right when you ask what memory the graph adds; this exercise asks what is saved: count them"
            )
            hint_zh = "保存的权重是对参数自身存储的引用；问图多占多少内存时扣掉它们是对的，这里问的是保存了什么：要算上"
        elif found == 0:
            found_text = ("0 bytes: nothing was counted", "0 字节：什么都没数到")
            hint_en = (
                "run model(x) inside `with torch.autograd.graph.saved_tensors_hooks(pack, unpack):`, with "
                "grad enabled (not under no_grad), and count in pack"
            )
            hint_zh = (
                "在 `with torch.autograd.graph.saved_tensors_hooks(pack, unpack):` 里运行 model(x)，"
                "要在记录梯度的状态下（不要在 no_grad 里），在 pack 里计数"
            )
        else:
            found_text = (f"{found} bytes", f"{found} 字节")
            hint_en = (
                "one forward, inside saved_tensors_hooks; in pack, key each tensor's storage by "
                "untyped_storage().data_ptr() and add untyped_storage().nbytes() once per storage"
            )
            hint_zh = (
                "只做一次前向，放在 saved_tensors_hooks 里；在 pack 里以 untyped_storage().data_ptr() "
                "区分存储，每块存储只加一次 untyped_storage().nbytes()"
            )
        raise Fail(
            "the bytes differ from the distinct storages saved for backward",
            "字节数和为反向保存的不同存储的总大小不一致",
            expected=(
                f"{truth['bytes']} bytes in {truth['storages']} storages",
                f"{truth['storages']} 块存储共 {truth['bytes']} 字节",
            ),
            found=found_text,
            hint_en=hint_en,
            hint_zh=hint_zh,
        )

    model, x = model_and_input(4)
    check("three calls of saved_bytes leave no packed tensor alive", "调用三次 saved_bytes 之后，没有打包的张量还活着")
    leaked = tensors_alive_after(lambda: [solution.saved_bytes(model, x) for _ in range(3)])
    if leaked > 0:
        raise Fail(
            "tensors saved during the forwards are still alive after the calls returned",
            "调用返回之后，前向时保存的张量仍然活着",
            expected=("no more tensors than before", "张量数不比调用前多"),
            found=(f"{leaked} more tensors alive after three calls", f"三次调用后多出 {leaked} 个活着的张量"),
            hint_en="return t.detach() from pack, not t: ReLU saves its own output, and when pack hands back "
            "that very tensor, its grad_fn and the graph hold each other, so without a backward no "
            "garbage collection frees them. And keep no saved tensor in a list that outlives the call",
            hint_zh="pack 要返回 t.detach()，不要返回 t：ReLU 保存的是自己的输出，pack 把这个张量原样交回时，"
            "它的 grad_fn 和图互相引用，不做反向传播的话，垃圾回收也释放不了。另外，不要把保存的张量放进"
            "调用结束后还活着的列表里",
        )

    model, x = model_and_input(4)
    check(
        "three calls of saved_bytes leave no saved storage allocated", "调用三次 saved_bytes 之后，保存过的存储都已释放"
    )
    alive, made = storages_alive_after(model, lambda: [solution.saved_bytes(model, x) for _ in range(3)])
    if alive > 0:
        raise Fail(
            "storages made during the forwards are still allocated after the calls returned",
            "调用返回之后，前向时分配的存储仍然没有释放",
            expected=("none of them allocated", "全部已释放"),
            found=(
                f"{alive} of the {made} storages of the layers' outputs still allocated",
                f"各层输出的 {made} 块存储里还有 {alive} 块没有释放",
            ),
            hint_en="keep only numbers (data_ptr(), nbytes()) once the forward is over: a kept "
            "untyped_storage() keeps its memory allocated as surely as a kept tensor",
            hint_zh="前向结束后只留下数字（data_ptr()、nbytes()）：留着 untyped_storage() 对象，"
            "和留着张量一样，它的内存就释放不了",
        )

    # --- the method: one forward inside the hooks, and a count of what pack receives ---
    model, x = model_and_input(4)
    check(
        "saved_bytes runs model(x) once, inside saved_tensors_hooks",
        "saved_bytes 只运行一次 model(x)，并且在 saved_tensors_hooks 里",
    )
    forwards = forwards_inside_hooks(model, lambda: solution.saved_bytes(model, x))
    if forwards != [True]:
        ran, inside = len(forwards), sum(forwards)
        raise Fail(
            f"model(x) ran {times(ran)}, {inside} of them inside saved_tensors_hooks: expected one forward, "
            f"inside the hooks",
            f"model(x) 运行了 {ran} 次，其中 {inside} 次在 saved_tensors_hooks 里：应当只做一次前向，并且在钩子里",
            expected=("one forward, inside saved_tensors_hooks", "一次前向，在 saved_tensors_hooks 里"),
            found=(f"forwards: {ran}, inside the hooks: {inside}", f"{ran} 次前向，{inside} 次在钩子里"),
            hint_en="count in pack: it sees every saved tensor, even those of layers you don't know",
            hint_zh="在 pack 里计数：它能看到每一个被保存的张量，连你不认识的层保存的也不例外",
        )

    model, x = model_and_input(4)
    check("saved_bytes runs no backward pass", "saved_bytes 不做反向传播")
    passes, reached = watched_call(model, lambda: solution.saved_bytes(model, x))
    if passes or reached:
        found = counted(passes) if passes else ("a gradient reached model(x)'s output", "有梯度传到了 model(x) 的输出")
        raise Fail(
            "saved_bytes ran a backward pass: the exercise asks for forward only",
            "saved_bytes 做了反向传播：这道题只做前向",
            expected=("no backward(), no torch.autograd.grad", "不调用 backward()，也不调用 torch.autograd.grad"),
            found=found,
            hint_en="count during forward and return; a backward only hides what pack returned: if pack "
            "returns t itself, a graph whose ReLU saved its output leaks whenever no backward runs. "
            "Return t.detach()",
            hint_zh="在前向时计数，然后返回；反向传播只会掩盖 pack 返回了什么：pack 返回 t 本身时，"
            "只要没做反向传播，ReLU 保存了自己输出的那张图就会泄漏。要返回 t.detach()",
        )

    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 32), SquareLayer(), nn.Linear(32, 8))
    x = torch.randn(4, 16)
    truth = accounts(model, x)
    check(
        f"saved_bytes on another model (Tanh, and a custom autograd Function): {truth['storages']} distinct storages",
        f"换一个模型（含 Tanh 和一个自定义 autograd Function）调用 saved_bytes：{truth['storages']} 块不同的存储",
    )
    found = as_bytes(solution.saved_bytes(model, x))
    if found != truth["bytes"]:
        raise Fail(
            f"for a model with Tanh and a custom autograd Function the bytes are {found}, not {truth['bytes']}: "
            "the count must come from what pack receives, not from the layers' shapes or grad_fn attributes",
            f"对一个含 Tanh 和自定义 autograd Function 的模型，字节数是 {found}，不是 {truth['bytes']}："
            "要数 pack 收到的张量，而不是按层的形状或 grad_fn 的属性推算",
            expected=(
                f"{truth['bytes']} bytes in {truth['storages']} storages",
                f"{truth['storages']} 块存储共 {truth['bytes']} 字节",
            ),
            found=(f"{found} bytes", f"{found} 字节"),
            hint_en="a custom Function saves with ctx.save_for_backward and Tanh saves its output: pack sees "
            "them all; key each storage by untyped_storage().data_ptr()",
            hint_zh="自定义 Function 用 ctx.save_for_backward 保存，Tanh 保存自己的输出：pack 全都看得到；"
            "以 untyped_storage().data_ptr() 区分每块存储",
        )

    torch.manual_seed(2)
    # The first layer's output is saved only as a slice that stops short of its storage's end: a count
    # that takes a view's bytes, or the bytes up to the end of the furthest view, not its storage's,
    # comes out short. The ReLU's output, twice as large (so that no two errors cancel),
    # is saved whole and as a slice: a count keyed by the view's own address counts it twice.
    model = nn.Sequential(nn.Linear(16, 32), FirstHalf(), nn.Linear(16, 64), nn.ReLU(), SecondHalf(), nn.Linear(32, 8))
    x = torch.randn(4, 16)
    truth = accounts(model, x)
    check(
        f"saved_bytes on a model that saves a slice of a larger tensor: {truth['storages']} distinct storages",
        f"换一个保存了某个大张量切片的模型调用 saved_bytes：{truth['storages']} 块不同的存储",
    )
    found = as_bytes(solution.saved_bytes(model, x))
    if found != truth["bytes"]:
        raise Fail(
            f"for a model that saves a slice of a larger tensor the bytes are {found}, not {truth['bytes']}: "
            "each storage counts once and whole, whatever view of it was saved",
            f"对一个保存了大张量切片的模型，字节数是 {found}，不是 {truth['bytes']}："
            "不论保存的是哪种视图，每块存储都只算一次、按整块算",
            expected=(
                f"{truth['bytes']} bytes in {truth['storages']} storages",
                f"{truth['storages']} 块存储共 {truth['bytes']} 字节",
            ),
            found=(f"{found} bytes", f"{found} 字节"),
            hint_en="a slice such as h[:, 16:] starts inside h's storage, so its own data_ptr() is not the storage's; "
            "h[:, :16] stops short of its end; the numel() * element_size() of either is half of it. Key by t.untyped_storage().data_ptr() and "
            "add t.untyped_storage().nbytes()",
            hint_zh="像 h[:, 16:] 这样的切片从 h 的存储中间开始，它自己的 data_ptr() 不是存储的地址；"
            "h[:, :16] 则没到存储末尾就停了；两者的 numel() * element_size() 都只有存储的一半。以 t.untyped_storage().data_ptr() 为键，"
            "加 t.untyped_storage().nbytes()",
        )

    torch.manual_seed(3)
    cut = DetachedOutput()
    model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 32), SquareLayer(), nn.Linear(32, 8), cut)
    x = torch.randn(4, 16)
    truth = accounts(model, x)
    cut.kept.clear()
    check(
        f"saved_bytes on a model whose output is cut off from its graph: {truth['storages']} distinct storages",
        f"换一个输出与计算图断开的模型调用 saved_bytes：{truth['storages']} 块不同的存储",
    )
    try:
        found = as_bytes(solution.saved_bytes(model, x))
    finally:
        cut.kept.clear()
    if found != truth["bytes"]:
        raise Fail(
            f"for a model whose output has no grad_fn the bytes are {found}, not {truth['bytes']}: only pack "
            "sees what was saved, there is no graph to walk from the output",
            f"对一个输出没有 grad_fn 的模型，字节数是 {found}，不是 {truth['bytes']}："
            "只有 pack 看得到保存了什么，从输出出发没有图可走",
            expected=(
                f"{truth['bytes']} bytes in {truth['storages']} storages",
                f"{truth['storages']} 块存储共 {truth['bytes']} 字节",
            ),
            found=(f"{found} bytes", f"{found} 字节"),
            hint_en="count in pack, while forward runs: every tensor saved for backward passes through it, "
            "whatever becomes of the output",
            hint_zh="就在前向运行时、在 pack 里计数：每个为反向保存的张量都会经过它，不管输出后来怎样",
        )

    torch.manual_seed(3)
    hidden = SavesOutOfSight()
    # Halve's node holds the 0.5 as an 8-byte tensor that pack never receives: a count read from grad_fn
    # attributes, wherever it finds the nodes (even from every aten op's output), comes out 8 bytes over.
    model = nn.Sequential(nn.Linear(16, 32), Halve(), hidden, nn.Linear(32, 8))
    x = torch.randn(4, 16)
    truth = accounts(model, x)
    hidden.kept.clear()
    check(
        f"saved_bytes on a model with a module that saves tensors and hands back a result cut off from them, "
        f"and an h * 0.5: {truth['storages']} distinct storages",
        f"换一个模型调用 saved_bytes，其中一个模块保存了张量，交回的结果却和它们断开，另有一次 h * 0.5："
        f"{truth['storages']} 块不同的存储",
    )
    try:
        found = as_bytes(solution.saved_bytes(model, x))
    finally:
        hidden.kept.clear()
    if found != truth["bytes"]:
        raise Fail(
            f"for a model in which a module hides what it saved the bytes are {found}, not {truth['bytes']}: "
            "no module's output leads to the nodes that saved those tensors, only pack sees them; and the "
            "0.5 that h * 0.5 keeps on its node never reaches pack",
            f"对一个模块把自己保存的张量藏起来的模型，字节数是 {found}，不是 {truth['bytes']}："
            "从哪个模块的输出出发都走不到保存这些张量的节点，只有 pack 看得到它们；"
            "而 h * 0.5 留在节点上的 0.5 从不交给 pack",
            expected=(
                f"{truth['bytes']} bytes in {truth['storages']} storages",
                f"{truth['storages']} 块存储共 {truth['bytes']} 字节",
            ),
            found=(f"{found} bytes", f"{found} 字节"),
            hint_en="count in pack, while forward runs: walking grad_fn graphs from outputs misses "
            "whatever no output leads to, and reading their _saved_* attributes also counts the "
            "Python number of h * 0.5 (_saved_other), which pack never receives",
            hint_zh="就在前向运行时、在 pack 里计数：从输出沿 grad_fn 往回走，走不到的节点就漏掉了；"
            "读节点的 _saved_* 属性，还会把 h * 0.5 里的 Python 数（_saved_other）也算进去，"
            "而 pack 从没收到过它",
        )

    torch.manual_seed(4)
    # Large enough that the allocator may hand a freed tanh output's address to a later tensor: a count
    # keyed by address that keeps nothing alive meanwhile takes two storages for one. Whether it does
    # depends on the allocator, so StillAllocated also looks, during forward, at what pack received.
    noted = []
    probe = StillAllocated(noted)
    model = nn.Sequential(
        nn.Linear(16, 64), GradientInside(noted), nn.Linear(64, 64), GradientInside(noted), nn.Linear(64, 8), probe
    )
    x = torch.randn(256, 16)
    truth = accounts(model, x)
    noted.clear()
    probe.alive.clear()
    check(
        f"saved_bytes on a model that takes a gradient during its forward: {truth['storages']} distinct storages",
        f"换一个在前向里自己求梯度的模型调用 saved_bytes：{truth['storages']} 块不同的存储",
    )
    found = as_bytes(solution.saved_bytes(model, x))
    keep_en = (
        "count in pack, and keep what it receives (t.detach() in a list) until the forward has returned, so "
        "that no storage is freed and its address reused while you count; then let the list go"
    )
    keep_zh = (
        "在 pack 里计数，并把收到的张量（t.detach() 放进一个列表）留到前向返回为止，"
        "免得数的过程中有存储被释放、地址被重用；数完再把列表丢掉"
    )
    if probe.alive and probe.alive[0] < len(noted):
        freed = len(noted) - probe.alive[0]
        raise Fail(
            f"for a model that takes a gradient during its forward, {freed} of the {len(noted)} storages "
            "tanh saved were freed before forward returned: that gradient frees them, and your pack did not "
            "keep what it received, so a later tensor may be given their addresses while you count",
            f"对一个在前向里自己求梯度的模型，tanh 保存的 {len(noted)} 块存储里，有 {freed} 块在前向返回之前"
            "就释放了：这次求梯度释放了它们，你的 pack 又没有留住收到的张量，数的过程中它们的地址就可能分给后来的张量",
            expected=(
                f"the {len(noted)} storages still allocated when the model's last module runs",
                f"模型最后一个模块运行时，这 {len(noted)} 块存储都还没有释放",
            ),
            found=(f"{freed} of {len(noted)} freed", f"{len(noted)} 块里有 {freed} 块已释放"),
            hint_en=keep_en,
            hint_zh=keep_zh,
        )
    if found != truth["bytes"]:
        raise Fail(
            f"for a model that takes a gradient during its forward the bytes are {found}, not {truth['bytes']}: "
            "that gradient frees what tanh saved while forward is still running, so no node holds it "
            "afterwards, and a later tensor may be given its address; pack received it all the same",
            f"对一个在前向里自己求梯度的模型，字节数是 {found}，不是 {truth['bytes']}：这次求梯度在前向还没结束时"
            "就释放了 tanh 保存的张量，之后没有哪个节点还持有它，它的地址也可能分给后来的张量；可 pack 照样收到过它",
            expected=(
                f"{truth['bytes']} bytes in {truth['storages']} storages",
                f"{truth['storages']} 块存储共 {truth['bytes']} 字节",
            ),
            found=(f"{found} bytes", f"{found} 字节"),
            hint_en=keep_en,
            hint_zh=keep_zh,
        )

    torch.manual_seed(5)
    # The graph and pack disagree both ways: tanh's node holds a storage pack never receives, and pack
    # receives a 0-dim tensor. A count read from grad_fn attributes comes out over, however it reaches
    # the nodes; one that skips 0-dim tensors (the Python number of h * 0.5) also misses the 0.5 here.
    model = nn.Sequential(nn.Linear(16, 32), OwnHooks(), nn.Linear(32, 8))
    x = torch.randn(4, 16)
    truth = accounts(model, x)
    check(
        f"saved_bytes on a model with a module that saves under hooks of its own and multiplies by a 0-dim "
        f"tensor: {truth['storages']} distinct storages",
        f"换一个模型调用 saved_bytes，其中一个模块在自己的钩子里保存张量，还乘了一个 0 维张量："
        f"{truth['storages']} 块不同的存储",
    )
    found = as_bytes(solution.saved_bytes(model, x))
    if found != truth["bytes"]:
        raise Fail(
            f"for a model with a module that saves under saved_tensors_hooks of its own the bytes are {found}, "
            f"not {truth['bytes']}: what it saves under its own hooks is in the graph but never reaches your "
            "pack, and the 0-dim tensor it multiplies by does reach pack",
            f"对一个在自己的 saved_tensors_hooks 里保存张量的模型，字节数是 {found}，不是 {truth['bytes']}："
            "它在自己的钩子里保存的张量在图里，却从不交给你的 pack；它乘的那个 0 维张量倒是交给了 pack",
            expected=(
                f"{truth['bytes']} bytes in {truth['storages']} storages",
                f"{truth['storages']} 块存储共 {truth['bytes']} 字节",
            ),
            found=(f"{found} bytes", f"{found} 字节"),
            hint_en="count in pack what pack receives, 0-dim tensors included: when hooks are nested only the "
            "innermost run, and the graph's _saved_* attributes are not what your pack received",
            hint_zh="在 pack 里数 pack 收到的张量，0 维的也算：钩子嵌套时只有最里层的会运行，"
            "图里 _saved_* 属性上的张量并不就是你的 pack 收到的",
        )
