"""Exercises of the chapter scalar-outputs."""

import contextlib
import warnings
from dataclasses import dataclass, field

import torch
import torch.autograd.functional
import torch.func

from exercise_judge.checking import Fail, exercise, times
from exercise_judge.checks._shared import explained
from exercise_judge.spies import autograd_passes, counted

# vjp must get vᵀJ from a backward pass of its own: every public function of these two modules
# computes Jacobians or products with them, or maps a computation over many vectors (vmap).
READY_MADE = [
    (module, name)
    for module in (torch.autograd.functional, torch.func)
    for name in dir(module)
    if not name.startswith("_") and callable(getattr(module, name))
]


# Calls of f_mix and f_wide, counted in their own bodies: a solution that digs the function out of the
# wrapper vjp receives (and runs it where the wrapper does not see) is counted all the same.
CALLS = {"f": 0}


def f_mix(x):
    """Three outputs that mix three inputs (the chapter's f): the Jacobian is not diagonal."""
    CALLS["f"] += 1
    return torch.stack([x[0] * x[1], x[1] ** 2, x[0] + 3 * x[2]])


A = torch.tensor([[1.0, -2.0, 0.5, 3.0], [0.0, 1.5, -1.0, 2.0]])


def f_wide(x):
    """Two outputs from four inputs: J is 2 x 4, so vᵀJ has x's shape, not v's (in x's dtype, whatever it is)."""
    CALLS["f"] += 1
    return A.to(x.dtype) @ torch.tanh(x)


@contextlib.contextmanager
def no_ready_made(solution):
    """Replace the ready-made functions, wherever torch or the reader's module holds them (torch.vmap is
    torch.func.vmap), by one that fails."""
    replaced = []
    for module, name in READY_MADE:
        original = getattr(module, name)

        def refuse(*args, _name=f"{module.__name__}.{name}", **kwargs):
            raise Fail(
                f"vjp called {_name}",
                f"vjp 调用了 {_name}",
                expected=("one out.backward(v)", "一次 out.backward(v)"),
                found=_name,
                hint_en="the exercise is to get vᵀJ from backward itself: f(leaf).backward(v) on a leaf copy of x",
                hint_zh="这道练习要用 backward 本身得到 vᵀJ：对 x.detach().requires_grad_() 这个新的叶子张量做 f(leaf).backward(v)",
            )

        for owner in (module, torch, solution):
            for attribute, value in list(vars(owner).items()):
                if value is original:
                    replaced.append((owner, attribute, original))
                    setattr(owner, attribute, refuse)
    try:
        yield
    finally:
        for owner, name, original in reversed(replaced):
            setattr(owner, name, original)


def dtype_name(t):
    return str(t.dtype).removeprefix("torch.")


def show(t):
    return "[" + ", ".join(f"{value:.4g}" for value in t.tolist()) + "]"


@dataclass
class Seen:
    """What one call of vjp did: how often it called f, what reached f's output in the backward
    passes (show(grad), "v", or None for a batch of gradients at once), the passes themselves, and
    how many tensors f saved for backward and how many times they were read back (one pass reads
    each once; a node of the graph called directly reads its own again).
    `swap`, if set, replaces the gradient that reaches the tensor f received: the pass then brings
    swap to the leaf, whatever J is."""

    calls: int = 0
    arrived: list = field(default_factory=list)
    passes: list = field(default_factory=list)
    swap: torch.Tensor | None = None
    saved: int = 0
    read: int = 0


def batched(grad):
    """Whether grad is one of a batch of gradients: vmap's batched tensor, or the older kind that
    torch.autograd.grad(..., is_grads_batched=True) sends."""
    functorch = torch._C._functorch
    return functorch.is_batchedtensor(grad) or functorch.is_legacy_batchedtensor(grad)


def watched(f, v, seen):
    """f, recording in `seen`, by a hook on its output, each gradient that reaches it, and, by
    saved-tensor hooks, each tensor f saves and each reading of one; and, if seen.swap is set, replacing
    by it the gradient that reaches the tensor f receives (f counts its own calls). A gradient computed
    any other way than by the engine's pass to that tensor (J from the graph's nodes, which tensor
    hooks do not see; a table) then no longer fits. That tensor gets a hook in every call, one that
    changes nothing unless seen.swap is set, so that the hook's presence does not tell the swap."""

    def arrival(grad):
        if batched(grad):  # is_grads_batched and vmap send a batch of gradients
            seen.arrived.append(None)
            return None
        # f may run in another dtype (float64, say): v arrives converted to it
        seen.arrived.append("v" if grad.shape == v.shape and torch.allclose(grad.to(v.dtype), v) else show(grad))
        return None

    def pack(tensor):
        seen.saved += 1
        return tensor

    def unpack(tensor):
        seen.read += 1
        return tensor

    def f_seen(t):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            t.register_hook(lambda grad: None if seen.swap is None else seen.swap.to(grad.dtype))
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            out = f(t)
        if isinstance(out, torch.Tensor) and out.requires_grad:
            out.register_hook(arrival)
        return out

    return f_seen


def call_vjp(solution, f, x, v, swap=None):
    """solution.vjp(f, x, v) with f watched (the gradient at the tensor it receives replaced by `swap`, if
    given), and
    with the usual error of a backward on an x that needs no grad explained: (what it returned, Seen)."""
    seen = Seen(swap=swap)
    CALLS["f"] = 0
    with (
        explained(
            "does not require grad",
            ("backward found nothing that requires grad", "backward 找不到任何要梯度的张量"),
            ("f(x) computed from a leaf that requires grad", "f(x) 由一个要梯度的叶子张量算出"),
            (
                "the x you are given does not require grad: run f on x.detach().requires_grad_()",
                "传进来的 x 不要梯度：对 x.detach().requires_grad_() 算 f",
            ),
        ),
        autograd_passes() as passes,
    ):
        found = solution.vjp(watched(f, v, seen), x, v)
    seen.calls, seen.passes = CALLS["f"], passes
    return found, seen


def as_result(found, x):
    """The reader's result as a tensor of x's shape, or a Fail that says what came back instead."""
    if found is None:
        raise Fail(
            "vjp returned None",
            "vjp 返回了 None",
            expected=(f"a tensor of shape {list(x.shape)}, like x", f"和 x 一样形状为 {list(x.shape)} 的张量"),
            found="None",
            hint_en="if you return the .grad of a copy made with x.clone(), the copy is not a leaf and its "
            ".grad stays None: make a leaf with x.detach().requires_grad_()",
            hint_zh="如果返回的是 x.clone() 那份拷贝的 .grad：拷贝不是叶子张量，.grad 一直是 None；"
            "用 x.detach().requires_grad_() 造一个叶子张量",
        )
    if not isinstance(found, torch.Tensor) or found.shape != x.shape:
        what = (
            (f"a tensor of shape {list(found.shape)}", f"形状为 {list(found.shape)} 的张量")
            if isinstance(found, torch.Tensor)
            else (type(found).__name__, type(found).__name__)
        )
        raise Fail(
            "vjp must return a tensor of x's shape",
            "vjp 应当返回和 x 同形状的张量",
            expected=f"torch.Tensor {list(x.shape)}",
            found=what,
            hint_en="vᵀJ has one entry per input: it has the shape of x (not of v, not of f(x))",
            hint_zh="vᵀJ 每个输入对应一个分量：形状和 x 相同（不是 v 的，也不是 f(x) 的）",
        )
    if found.dtype != x.dtype:
        raise Fail(
            f"vjp returned a {dtype_name(found)} tensor, while x is {dtype_name(x)}",
            f"vjp 返回的是 {dtype_name(found)} 张量，而 x 是 {dtype_name(x)}",
            expected=dtype_name(x),
            found=dtype_name(found),
            hint_en="vᵀJ is a gradient with respect to x: return it in x's dtype, e.g. with .to(x.dtype)",
            hint_zh="vᵀJ 是对 x 的梯度，要用 x 的 dtype 返回，例如 .to(x.dtype)",
        )
    return found.detach().clone()  # a copy: a later backward must not change it under our eyes


def require_value(found, expected, summed, previous, call, held=None):
    """Fail unless found is v @ J, naming the usual mistakes: v ignored, the previous call's result or
    the caller's earlier x.grad (`held`) added in."""
    if torch.allclose(found, expected, atol=1e-5):
        return
    if held is not None and torch.allclose(found, expected + held, atol=1e-4):
        raise Fail(
            "the result includes what x.grad held before the call",
            "结果里带上了调用之前 x.grad 的值",
            expected=show(expected),
            found=show(found),
            hint_en="backward adds into the .grad of the leaf it reaches; run it on "
            "x.detach().requires_grad_(), a new leaf whose .grad starts as None",
            hint_zh="backward 往它走到的叶子张量的 .grad 上累加；要在 x.detach().requires_grad_() "
            "这个新叶子张量上做反向传播，它的 .grad 从 None 开始",
        )
    if torch.allclose(found, summed, atol=1e-5):
        hint_en = (
            "the result is the gradient of f(x).sum(): v was ignored. .sum() weights every "
            "output by 1, as backward(torch.ones_like(out)) does; pass v itself: f(x).backward(v)"
        )
        hint_zh = (
            "结果是 f(x).sum() 的梯度：v 被忽略了。.sum() 让每个输出的权重都是 1，等于 "
            "backward(torch.ones_like(out))；要把 v 本身传进去：f(x).backward(v)"
        )
    elif previous is not None and torch.allclose(found, expected + previous, atol=1e-5):
        hint_en = (
            "the result is this v's vᵀJ plus the previous call's: backward adds into x.grad. "
            "Work on a fresh leaf each call: x.detach().requires_grad_()"
        )
        hint_zh = (
            "结果是这次的 vᵀJ 加上前一次调用的：backward 是往 x.grad 上累加的。"
            "每次调用都用一个新的叶子张量：x.detach().requires_grad_()"
        )
    else:
        hint_en = "make a leaf copy of x that requires grad, run f on it, backward(v), return its .grad"
        hint_zh = "把 x 复制成一个要梯度的叶子张量，对它算 f，再 backward(v)，返回它的 .grad"
    raise Fail(
        f"{call} differs from v @ J",
        f"{call} 和 v @ J 不同",
        expected=show(expected),
        found=show(found),
        hint_en=hint_en,
        hint_zh=hint_zh,
    )


@dataclass
class Before:
    """The caller's x as vjp received it: what vjp must leave as it was."""

    values: torch.Tensor
    requires_grad: bool
    grad: torch.Tensor | None
    grad_fn: object

    @classmethod
    def of(cls, x):
        held = grad_of(x)
        return cls(x.detach().clone(), x.requires_grad, None if held is None else held.clone(), x.grad_fn)


def grad_of(x):
    """x.grad, for a non-leaf too: None unless something wrote into it (reading it warns, hence the filter)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return x.grad


def require_untouched(x, before, call):
    """Fail unless the caller's x has the values, requires_grad, .grad and history it had before."""
    if not torch.equal(x.detach(), before.values):
        raise Fail(
            f"{call} changed the values of the caller's x",
            f"{call} 改动了调用方 x 的值",
            expected=show(before.values),
            found=show(x.detach()),
            hint_en="do not modify x in place",
            hint_zh="不要原地修改 x",
        )
    if x.requires_grad != before.requires_grad or x.grad_fn is not before.grad_fn:
        now = "requires_grad=True" if x.requires_grad else "requires_grad=False"
        was = "requires_grad=True" if before.requires_grad else "requires_grad=False"
        if x.grad_fn is not before.grad_fn:
            now, was = f"{now}, grad_fn={type(x.grad_fn).__name__}", f"{was}, grad_fn={type(before.grad_fn).__name__}"
        raise Fail(
            f"{call} changed whether the caller's x requires grad, or its history",
            f"{call} 改动了调用方的 x 是否要梯度，或者它的计算历史",
            expected=was,
            found=now,
            hint_en="leave the caller's x alone: make your own leaf with x.detach().requires_grad_() and run f on that",
            hint_zh="别动调用方的 x：用 x.detach().requires_grad_() 造一个自己的叶子张量，对它算 f",
        )
    grad = grad_of(x)
    same = grad is None if before.grad is None else grad is not None and torch.equal(grad, before.grad)
    if not same:
        raise Fail(
            f"{call} changed the caller's x.grad",
            f"{call} 改动了调用方的 x.grad",
            expected="None" if before.grad is None else show(before.grad),
            found="None" if grad is None else show(grad),
            hint_en="the caller's gradient is not yours to touch: run backward on a detached leaf copy of x",
            hint_zh="调用方的梯度不该由你改动：在 x.detach() 得到的叶子张量上做反向传播",
        )


def require_method(seen, call, solution):
    """Fail unless this call of vjp called f once and ran one backward pass of its own, through which
    exactly one gradient reached f's output, and that gradient was v; and the tensors f saved were read
    no more often than that one pass reads them (once each)."""
    if seen.calls != 1:
        n = seen.calls
        raise Fail(
            f"{call} called f {times(n)}: one forward and one backward(v) are enough; building J column "
            "by column is what vjp avoids",
            f"{call} 调用了 f {n} 次：一次前向、一次 backward(v) 就够了；一列一列地构造 J 正是 vjp 要避免的",
            expected=("f called once", "f 调用一次"),
            found=(f"f called {times(n)}", f"f 调用了 {n} 次"),
            hint_en="one f(leaf), then out.backward(v): v weights the outputs, and one pass gives vᵀJ",
            hint_zh="一次 f(leaf)，再 out.backward(v)：v 给各个输出加权，一次反向传播就得到 vᵀJ",
        )
    ready_made = [found for found in seen.passes if not found.by(solution.__file__)]
    if ready_made:
        raise Fail(
            f"the backward pass was run by {ready_made[0].origin}, not by your code",
            f"反向传播是 {ready_made[0].origin} 做的，不是你的代码",
            expected=("one out.backward(v) in your code", "你的代码里的一次 out.backward(v)"),
            found=counted(seen.passes),
            hint_en="the exercise is to get vᵀJ from backward itself: f(leaf).backward(v) on a leaf copy of x",
            hint_zh="这道练习要用 backward 本身得到 vᵀJ：对 x.detach().requires_grad_() 这个新的叶子张量做 f(leaf).backward(v)",
        )
    if not seen.passes:
        raise Fail(
            f"{call} ran no backward pass: vᵀJ did not come from backward(v)",
            f"{call} 没有做反向传播：vᵀJ 不是由 backward(v) 得到的",
            expected=("one backward pass", "一次反向传播"),
            found=("none", "没有"),
            hint_en="the backward pass starts at what f returned: out = f(leaf); out.backward(v)",
            hint_zh="反向传播要从 f 返回的张量出发：out = f(leaf)；out.backward(v)",
        )
    if len(seen.passes) != 1:
        raise Fail(
            f"autograd ran {len(seen.passes)} backward passes in {call}: expected exactly one backward(v)",
            f"{call} 里 autograd 做了 {len(seen.passes)} 次反向传播：应当恰好一次 backward(v)",
            expected=("one backward pass", "一次反向传播"),
            found=counted(seen.passes),
            hint_en="one backward per output row builds J. f(leaf).backward(v) gives vᵀJ directly",
            hint_zh="每个输出调用一次 backward()、得到 J 的一行，就是在构造 J。f(leaf).backward(v) 直接给出 vᵀJ",
        )
    if seen.arrived == ["v"]:
        if seen.read > seen.saved:
            raise Fail(
                f"in {call}, the tensors f saved for backward were read {seen.read} times, while one backward "
                f"pass reads each of the {seen.saved} once: the graph's nodes were run outside the pass, "
                "as building J from them does",
                f"{call} 里 f 为反向传播保存的张量被读取了 {seen.read} 次，而一次反向传播只把这 {seen.saved} 个"
                "各读一次：计算图的节点在反向传播之外被调用过，从节点构造 J 就是这样",
                expected=(f"{seen.saved} readings", f"读取 {seen.saved} 次"),
                found=(f"{seen.read} readings", f"读取 {seen.read} 次"),
                hint_en="do not call the graph's nodes (grad_fn) yourself: return the .grad that "
                "f(leaf).backward(v) leaves on your leaf",
                hint_zh="不要自己调用计算图的节点（grad_fn）：返回 f(leaf).backward(v) 在你的叶子张量上留下的 .grad",
            )
        return
    if not seen.arrived:
        raise Fail(
            f"in {call}, no gradient reached f's output: vᵀJ did not come from a backward pass through f",
            f"{call} 里没有任何梯度传到 f 的输出：vᵀJ 不是由经过 f 的反向传播得到的",
            expected=("v, once, at f's output", "v 传到 f 的输出，一次"),
            found=("nothing", "没有"),
            hint_en="the backward pass starts at what f returned: out = f(leaf); out.backward(v)",
            hint_zh="反向传播要从 f 返回的张量出发：out = f(leaf)；out.backward(v)",
        )
    if None in seen.arrived:
        raise Fail(
            f"in {call}, a batched gradient reached f's output (is_grads_batched or vmap): the exercise "
            "asks for one plain, unbatched backward(v)",
            f"{call} 里传到 f 输出的是批量梯度（is_grads_batched 或 vmap）：这道练习要的是一次普通的、"
            "不分批的 backward(v)",
            expected=("v, once, at f's output", "v 传到 f 的输出，一次"),
            found=("a batched gradient", "批量梯度"),
            hint_en="pass v itself, not batched: out.backward(v) gives vᵀJ in one pass",
            hint_zh="直接传 v 本身，不要分批：out.backward(v) 一次反向传播就给出 vᵀJ",
        )
    raise Fail(
        f"in {call}, the gradient that reached f's output was not v",
        f"{call} 里传到 f 输出的梯度不是 v",
        expected=("v, once, at f's output", "v 传到 f 的输出，一次"),
        found=", ".join(str(arrived) for arrived in seen.arrived),
        hint_en="v is the starting gradient of the pass: out.backward(v), or (v * out).sum().backward()",
        hint_zh="v 就是这次反向传播的起点梯度：out.backward(v)，或者 (v * out).sum().backward()",
    )


@exercise(
    "scalar-outputs/vjp", en="vᵀJ from one backward(v), without building J", zh="一次 backward(v) 得到 vᵀJ，不构造 J"
)
def vjp(solution, check):
    torch.manual_seed(0)
    cases = [
        ("f_mix", f_mix, torch.tensor([1.0, 2.0, 3.0]), [[1.0, 0.5, -2.0], [0.0, -1.0, 3.0]]),
        ("f_wide", f_wide, torch.randn(4), [[2.0, -1.0], [0.5, 0.25]]),
        ("f_wide", f_wide, torch.randn(4, dtype=torch.float64), [[2.0, -1.0]]),
    ]  # x's dtype, not float32
    # The truth, from the full Jacobian, before any of the reader's code runs.
    jacobians = [torch.autograd.functional.jacobian(f, x) for _, f, x, _ in cases]
    # Every call is judged twice: its result, and how it got it (the method, on every value tried).
    with no_ready_made(solution):
        for (name, f, x, vs), jacobian in zip(cases, jacobians):
            previous = None
            for v in (torch.tensor(v, dtype=x.dtype) for v in vs):
                on = "" if x.dtype == torch.float32 else f" ({dtype_name(x)})"
                call = f"vjp({name}, x{on}, v={v.tolist()})"
                check(f"{call} equals v @ J and leaves x as it was", f"{call} 等于 v @ J，且不改动 x")
                before = Before.of(x)
                found, seen = call_vjp(solution, f, x, v)
                found = as_result(found, x)
                require_value(found, v @ jacobian, jacobian.sum(dim=0), previous, call)
                require_untouched(x, before, call)
                check(
                    f"{call} calls f once and runs one backward pass itself, which brings v to f's output: "
                    "no J, no ready-made transform",
                    f"{call} 只调用一次 f，亲自做一次反向传播，把 v 传到 f 的输出：不构造 J，也不用现成的变换",
                )
                require_method(seen, call, solution)
                previous = found

        # The result must be what the pass brought to the leaf: the judge's hook on the tensor f receives
        # swaps the gradient arriving there for u, so a vᵀJ computed any other way (J from the graph's
        # nodes, whose direct calls run no tensor hook; a table) no longer fits.
        name, f, x, vs = cases[1]
        v, u = torch.tensor(vs[0]), torch.tensor([0.25, -1.5, 3.0, 0.5])
        call = f"vjp({name}, x, v={v.tolist()})"
        check(
            f"{call}, the judge's hook on the tensor f receives swapping the gradient arriving there for "
            f"u = {u.tolist()}: returns u, the gradient the backward pass brought to the leaf",
            f"{call}，评测在 f 收到的张量上挂的钩子把传到那里的梯度换成 u = {u.tolist()}：返回 u，"
            "也就是这次反向传播送到叶子张量上的梯度",
        )
        found, seen = call_vjp(solution, f, x, v, swap=u)
        found = as_result(found, x)
        require_method(seen, call, solution)
        if not torch.allclose(found, u, atol=1e-5):
            came = torch.allclose(found, v @ jacobians[1], atol=1e-5)
            raise Fail(
                "the result did not come from the backward pass: "
                + (
                    "it stayed vᵀJ when the gradient reaching the tensor f received was changed to u"
                    if came
                    else "it is not the gradient the pass brought to the leaf"
                ),
                "结果不是这次反向传播得到的："
                + (
                    "传到 f 收到的张量上的梯度换成 u 之后，结果仍是 vᵀJ"
                    if came
                    else "它不是这次反向传播送到叶子张量上的梯度"
                ),
                expected=f"u = {show(u)}",
                found=show(found),
                hint_en="return the .grad that f(leaf).backward(v) leaves on your leaf, not a vᵀJ computed "
                "some other way",
                hint_zh="返回 f(leaf).backward(v) 在你的叶子张量上留下的 .grad，而不是用别的办法算出的 vᵀJ",
            )

        name, f, x, vs = cases[0]
        v = torch.tensor(vs[0])
        expected, summed = v @ jacobians[0], jacobians[0].sum(dim=0)

        x_held = x.clone().requires_grad_()
        x_held.grad = torch.full_like(x_held, 100.0)
        call = f"vjp({name}, x, v) on an x that requires grad and whose .grad holds 100s"
        check(
            f"{call} equals v @ J and leaves x and x.grad as they were",
            f"对一个要梯度、.grad 里已经有 100 的 x 调用 vjp({name}, x, v)：等于 v @ J，且不改动 x 和 x.grad",
        )
        before = Before.of(x_held)
        found, seen = call_vjp(solution, f, x_held, v)
        found = as_result(found, x_held)
        require_value(found, expected, summed, None, call, held=before.grad)
        require_untouched(x_held, before, call)
        check(
            f"{call} calls f once and runs one backward pass itself, which brings v to f's output",
            "对 .grad 里有 100 的 x 调用 vjp：只调用一次 f，亲自做一次反向传播，把 v 传到 f 的输出",
        )
        require_method(seen, call, solution)

        p = x.clone().requires_grad_()
        x_computed = p * 1.0
        call = f"vjp({name}, x, v) on x = p * 1.0, p a leaf that requires grad"
        check(
            f"{call} equals v @ J, leaves x (its .grad too) as it was, sends nothing into p.grad, and leaves "
            "the caller's graph from x back to p usable",
            f"对 x = p * 1.0（p 是要梯度的叶子张量）调用 vjp({name}, x, v)：等于 v @ J，不改动 x（包括它的 .grad），"
            "不往 p.grad 里写任何东西，调用方从 x 到 p 的计算图也还能用",
        )
        before = Before.of(x_computed)
        found, seen = call_vjp(solution, f, x_computed, v)
        if p.grad is not None:
            raise Fail(
                "the backward pass went on into the caller's graph: p, the leaf x was computed from, got a .grad",
                "反向传播一路传进了调用方的计算图：算出 x 的那个叶子张量 p 得到了 .grad",
                expected="p.grad = None",
                found=f"p.grad = {show(p.grad)}",
                hint_en="f ran on the caller's x itself, so backward followed x's history back to p: run f on "
                "x.detach().requires_grad_(), a new leaf cut off from that history",
                hint_zh="f 是对调用方的 x 本身算的，反向传播就顺着 x 的计算历史传回了 p：对 "
                "x.detach().requires_grad_() 算 f，这个新叶子张量和那段历史断开了",
            )
        found = as_result(found, x_computed)
        require_value(found, expected, summed, None, call)
        require_untouched(x_computed, before, call)
        try:
            (after,) = torch.autograd.grad((x_computed * x_computed).sum(), p)
        except RuntimeError as error:
            raise Fail(
                "after vjp, the caller's own backward from x to p fails: vjp freed the caller's graph",
                "vjp 之后，调用方自己从 x 反向传播到 p 失败了：vjp 释放了调用方的计算图",
                expected="torch.autograd.grad((x * x).sum(), p) = 2x",
                found=str(error).split("(")[0].strip(),
                hint_en="a backward that starts in f and runs on the caller's x (backward(v, inputs=[x])) "
                "frees the graph x was computed by; run f on x.detach().requires_grad_(), a new leaf "
                "cut off from that history",
                hint_zh="从 f 出发、在调用方的 x 上做的反向传播（backward(v, inputs=[x])）会释放算出 x 的那段"
                "计算图；对 x.detach().requires_grad_() 算 f，这个新叶子张量和那段历史断开了",
            ) from None
        if not torch.allclose(after, 2 * x):
            raise Fail(
                "after vjp, the caller's own gradient of (x * x).sum() with respect to p is wrong",
                "vjp 之后，调用方自己算的 (x * x).sum() 对 p 的梯度不对了",
                expected=show(2 * x),
                found=show(after),
                hint_en="leave the caller's graph alone: run f on x.detach().requires_grad_()",
                hint_zh="别动调用方的计算图：对 x.detach().requires_grad_() 算 f",
            )
        check(
            f"{call} calls f once and runs one backward pass itself, which brings v to f's output",
            "对 x = p * 1.0 调用 vjp：只调用一次 f，亲自做一次反向传播，把 v 传到 f 的输出",
        )
        require_method(seen, call, solution)
