"""Exercises of the chapter scalar-outputs."""

import contextlib

import torch
import torch.autograd.functional
import torch.func

from exercise_judge.checking import Fail, exercise, times
from exercise_judge.checks._shared import explained
from exercise_judge.spies import autograd_passes, counted

# vjp must use backward(v): these compute Jacobians or vector-Jacobian products for you.
READY_MADE = [(torch.autograd.functional, name) for name in ("jacobian", "vjp", "jvp", "hessian", "vhp", "hvp")]
READY_MADE += [(torch.func, name) for name in ("vjp", "jacrev", "jacfwd", "grad")]


def f_mix(x):
    """Three outputs that mix three inputs (the chapter's f): the Jacobian is not diagonal."""
    return torch.stack([x[0] * x[1], x[1] ** 2, x[0] + 3 * x[2]])


A = torch.tensor([[1.0, -2.0, 0.5, 3.0], [0.0, 1.5, -1.0, 2.0]])


def f_wide(x):
    """Two outputs from four inputs: J is 2 x 4, so vᵀJ has x's shape, not v's."""
    return A @ torch.tanh(x)


@contextlib.contextmanager
def no_ready_made(solution):
    """Replace the ready-made Jacobian functions, in torch and in the reader's module, by one that fails."""
    replaced = []
    for module, name in READY_MADE:
        original = getattr(module, name)

        def refuse(*args, _name=f"{module.__name__}.{name}", **kwargs):
            raise Fail(f"vjp called {_name}", f"vjp 调用了 {_name}",
                       expected=("one out.backward(v)", "一次 out.backward(v)"), found=_name,
                       hint_en="the exercise is to get vᵀJ from backward itself: f(x).backward(v) on a leaf",
                       hint_zh="这道练习要用 backward 本身得到 vᵀJ：对一个叶子张量做 f(x).backward(v)")

        replaced.append((module, name, original))
        setattr(module, name, refuse)
        for attribute, value in list(vars(solution).items()):
            if value is original:
                replaced.append((solution, attribute, original))
                setattr(solution, attribute, refuse)
    try:
        yield
    finally:
        for owner, name, original in reversed(replaced):
            setattr(owner, name, original)


def as_result(found, x):
    """The reader's result as a tensor of x's shape, or a Fail that says what came back instead."""
    if found is None:
        raise Fail("vjp returned None", "vjp 返回了 None",
                   expected=(f"a tensor of shape {list(x.shape)}, like x", f"和 x 一样形状为 {list(x.shape)} 的张量"),
                   found="None",
                   hint_en="if you return the .grad of a copy made with x.clone(), the copy is not a leaf and its "
                           ".grad stays None: make a leaf with x.detach().requires_grad_()",
                   hint_zh="如果返回的是 x.clone() 那份拷贝的 .grad：拷贝不是叶子张量，.grad 一直是 None；"
                           "用 x.detach().requires_grad_() 造一个叶子张量")
    if not isinstance(found, torch.Tensor) or found.shape != x.shape:
        what = (f"a tensor of shape {list(found.shape)}", f"形状为 {list(found.shape)} 的张量") \
            if isinstance(found, torch.Tensor) else (type(found).__name__, type(found).__name__)
        raise Fail("vjp must return a tensor of x's shape", "vjp 应当返回和 x 同形状的张量",
                   expected=f"torch.Tensor {list(x.shape)}", found=what,
                   hint_en="vᵀJ has one entry per input: it has the shape of x (not of v, not of f(x))",
                   hint_zh="vᵀJ 每个输入对应一个分量：形状和 x 相同（不是 v 的，也不是 f(x) 的）")
    return found.detach().clone()  # a copy: a later backward must not change it under our eyes


def call_vjp(solution, f, x, v):
    """solution.vjp(f, x, v), with the usual error of a backward on an x that needs no grad explained."""
    with explained("does not require grad",
                   ("backward found nothing that requires grad", "backward 找不到任何要梯度的张量"),
                   ("f(x) computed from a leaf that requires grad", "f(x) 由一个要梯度的叶子张量算出"),
                   ("the x you are given does not require grad: run f on x.detach().requires_grad_()",
                    "传进来的 x 不要梯度：对 x.detach().requires_grad_() 算 f")):
        return solution.vjp(f, x, v)


def show(t):
    return "[" + ", ".join(f"{value:.4g}" for value in t.tolist()) + "]"


@exercise("scalar-outputs/vjp",
          en="vᵀJ from one backward(v), without building J",
          zh="一次 backward(v) 得到 vᵀJ，不构造 J")
def vjp(solution, check):
    torch.manual_seed(0)
    cases = [("f_mix", f_mix, torch.tensor([1.0, 2.0, 3.0]), [[1.0, 0.5, -2.0], [0.0, -1.0, 3.0]]),
             ("f_wide", f_wide, torch.randn(4), [[2.0, -1.0], [0.5, 0.25]])]
    # The truth, from the full Jacobian, before any of the reader's code runs.
    jacobians = {name: torch.autograd.functional.jacobian(f, x) for name, f, x, _ in cases}
    with no_ready_made(solution):
        for name, f, x, vs in cases:
            previous = None
            for v in map(torch.tensor, vs):
                expected, summed = v @ jacobians[name], jacobians[name].sum(dim=0)
                check(f"vjp({name}, x, v={v.tolist()}) equals v @ J",
                      f"vjp({name}, x, v={v.tolist()}) 等于 v @ J")
                found = as_result(call_vjp(solution, f, x, v), x)
                if not torch.allclose(found, expected, atol=1e-5):
                    if torch.allclose(found, summed, atol=1e-5):
                        hint_en = ("the result is the gradient of f(x).sum(): v was ignored. .sum() weights every "
                                   "output by 1, as backward(torch.ones_like(out)) does; pass v itself: f(x).backward(v)")
                        hint_zh = ("结果是 f(x).sum() 的梯度：v 被忽略了。.sum() 让每个输出的权重都是 1，等于 "
                                   "backward(torch.ones_like(out))；要把 v 本身传进去：f(x).backward(v)")
                    elif previous is not None and torch.allclose(found, expected + previous, atol=1e-5):
                        hint_en = ("the result is this v's vᵀJ plus the previous call's: backward adds into x.grad. "
                                   "Work on a fresh leaf each call: x.detach().requires_grad_()")
                        hint_zh = ("结果是这次的 vᵀJ 加上前一次调用的：backward 是往 x.grad 上累加的。"
                                   "每次调用都用一个新的叶子张量：x.detach().requires_grad_()")
                    else:
                        hint_en = "make a leaf copy of x that requires grad, run f on it, backward(v), return its .grad"
                        hint_zh = "把 x 复制成一个要梯度的叶子张量，对它算 f，再 backward(v)，返回它的 .grad"
                    raise Fail(f"vjp({name}, x, v) differs from v @ J", f"vjp({name}, x, v) 和 v @ J 不同",
                               expected=show(expected), found=show(found), hint_en=hint_en, hint_zh=hint_zh)
                previous = found

        name, f, x, vs = cases[0]
        v = torch.tensor(vs[0])
        expected = v @ jacobians[name]
        x = x.clone().requires_grad_()
        x.grad = torch.full_like(x, 100.0)
        before = x.detach().clone()
        check("vjp leaves the caller's x and x.grad as they were (x requires grad, x.grad already holds 100s)",
              "vjp 不改动调用方的 x 和 x.grad（x 要梯度，x.grad 里已经有 100）")
        found = as_result(call_vjp(solution, f, x, v), x)
        if torch.allclose(found, expected + 100, atol=1e-4):
            raise Fail("the result includes what x.grad held before the call", "结果里带上了调用之前 x.grad 的值",
                       expected=show(expected), found=show(found),
                       hint_en="backward adds into the .grad of the leaf it reaches; run it on "
                               "x.detach().requires_grad_(), a new leaf whose .grad starts as None",
                       hint_zh="backward 往它走到的叶子张量的 .grad 上累加；要在 x.detach().requires_grad_() "
                               "这个新叶子张量上反向，它的 .grad 从 None 开始")
        if not torch.allclose(found, expected, atol=1e-5):
            raise Fail(f"vjp({name}, x, v) differs from v @ J when x requires grad",
                       f"x 要梯度时，vjp({name}, x, v) 和 v @ J 不同",
                       expected=show(expected), found=show(found),
                       hint_en="detach x before making it require grad: x.detach().requires_grad_()",
                       hint_zh="先 detach 再设要梯度：x.detach().requires_grad_()")
        if x.grad is None or not torch.equal(x.grad, torch.full_like(x, 100.0)):
            raise Fail("vjp changed the caller's x.grad", "vjp 改动了调用方的 x.grad",
                       expected="[100, 100, 100]", found="None" if x.grad is None else show(x.grad),
                       hint_en="the caller's gradient is not yours to touch: backward on a detached leaf copy of x",
                       hint_zh="调用方的梯度不该由你改动：在 x detach 出来的叶子张量上反向")
        if not torch.equal(x.detach(), before):
            raise Fail("vjp changed the values of the caller's x", "vjp 改动了调用方 x 的值",
                       expected=show(before), found=show(x.detach()),
                       hint_en="do not modify x in place", hint_zh="不要原地修改 x")

    # --- the method: one forward, one backward pass weighted by v, asked for by the reader's own code ---
    calls = []

    def counted_f(t):
        calls.append(1)
        return f_wide(t)

    x, v = torch.randn(4), torch.tensor([2.0, -1.0])
    check("vjp calls f once and runs one backward pass, itself: no J, no ready-made transform",
          "vjp 只调用一次 f，亲自做一次反向传播：不构造 J，也不用现成的变换")
    with autograd_passes() as passes:
        call_vjp(solution, counted_f, x, v)
    if (n := len(calls)) != 1:
        raise Fail(f"f was called {times(n)}: one forward and one backward(v) are enough; building J column "
                   "by column is what vjp avoids",
                   f"f 被调用了 {n} 次：一次前向、一次 backward(v) 就够了；一列一列地构造 J 正是 vjp 要避免的",
                   expected=("f called once", "f 调用一次"),
                   found=(f"f called {times(n)} for an x of {x.numel()} entries", f"x 有 {x.numel()} 个分量，f 被调用了 {n} 次"),
                   hint_en="one f(leaf), then out.backward(v): v weights the outputs, and one pass gives vᵀJ",
                   hint_zh="一次 f(leaf)，再 out.backward(v)：v 给各个输出加权，一次反向传播就得到 vᵀJ")
    ready_made = [found for found in passes if not found.by(solution.__file__)]
    if ready_made:
        raise Fail(f"the backward pass was run by {ready_made[0].origin}, not by your code",
                   f"反向传播是 {ready_made[0].origin} 做的，不是你的代码",
                   expected=("one out.backward(v) in your code", "你的代码里的一次 out.backward(v)"),
                   found=counted(passes),
                   hint_en="the exercise is to get vᵀJ from backward itself: f(leaf).backward(v) on a leaf copy of x",
                   hint_zh="这道练习要用 backward 本身得到 vᵀJ：在 x 的叶子拷贝上做 f(leaf).backward(v)")
    if len(passes) != 1:
        raise Fail(f"autograd ran {len(passes)} backward passes: expected exactly one backward(v)",
                   f"autograd 做了 {len(passes)} 次反向传播：应当恰好一次 backward(v)",
                   expected=("one backward pass", "一次反向传播"), found=counted(passes),
                   hint_en="one backward per output row builds J. f(leaf).backward(v) gives vᵀJ directly",
                   hint_zh="每个输出调用一次 backward()、得到 J 的一行，就是在构造 J。f(leaf).backward(v) 直接给出 vᵀJ")
