"""Exercises of the chapter hooks."""

import contextlib
import linecache
import os
import random
import sys

import torch
import torch.utils._pytree
import torch.utils._python_dispatch
import torch.utils.hooks
from torch import nn

from exercise_judge.checking import Fail, described, exercise
from exercise_judge.spies import autograd_passes, counted

# The earlier micro-batch's loss is multiplied by this before its backward, so that .grad holds a gradient
# about a million times larger than the one the solution must report: after backward, float32 .grad no
# longer holds that small part to the judge's tolerance (.grad after minus .grad before is off by up to
# half a unit in the last place of the large one), and only a hook that sees the gradient as it arrives
# can report it.
EARLIER_SCALE = 2.0**20
TOLERANCE = 1e-5  # relative, on each norm
# The judge's own hook, which runs before the solution's, multiplies the k-th gradient arriving at a parameter
# by 1 + (k + 1 + u) * RESCALE_STEP, with u drawn anew for every call from the operating system's randomness
# (uniform in [0, 1/2): no seed the solution sets reaches it). The gradient this backward hands to the
# solution's hooks differs by about 1 % from the unhooked gradient and by at least RESCALE_STEP / 2 from that
# of any other pass, and its factor cannot be known in advance: a norm computed apart and multiplied by a
# guessed factor misses it by up to 0.4 %, 400 times the tolerance. The judge also checks that a function
# of the solution is registered on each parameter (or on the node that adds into its .grad), that .grad
# stays a plain tensor, and that .grad holds the earlier gradient plus this one as soon as AccumulateGrad has
# added it, not only after the call returns; that the solution's code called a torch operation other than a
# metadata query on the tensor handed to its hooks (_Handed), and that no dispatch mode (which sees the judge's
# rescaling and AccumulateGrad's add) and no profile or trace function set during the call (which sees what the
# judge's hook returns) was active.
RESCALE_STEP = 2.0**-7
_FACTORS = random.SystemRandom()
# The judge's hooks, by name: a tensor operation made while one of them is on the stack is the judge's own.
_JUDGE_HOOKS = frozenset({"arriving", "adding", "accumulated"})
_HERE = os.path.realpath(__file__)


def _in_judge_hook() -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name in _JUDGE_HOOKS and os.path.realpath(frame.f_code.co_filename) == _HERE:
            return True
        frame = frame.f_back
    return False


# Tensor methods and properties that read no value of a tensor, only its shape, type, device or the like.
_METADATA = frozenset(
    {
        "shape",
        "size",
        "dim",
        "ndim",
        "ndimension",
        "numel",
        "nelement",
        "__len__",
        "dtype",
        "device",
        "layout",
        "stride",
        "storage_offset",
        "element_size",
        "itemsize",
        "nbytes",
        "requires_grad",
        "grad_fn",
        "is_leaf",
        "grad",
        "_version",
        "names",
        "get_device",
        "data_ptr",
        "__hash__",
        "__dir__",
    }
)


def _metadata_query(func) -> bool:
    """Whether `func`, as __torch_function__ receives it, reads no value: a property's __get__ (named by
    its descriptor), or a method named in _METADATA or is_*."""
    name = getattr(func, "__name__", "")
    if name == "__get__":
        name = getattr(getattr(func, "__self__", None), "__name__", "")
    return name in _METADATA or name.startswith("is_")


class _Handed(torch.Tensor):
    """The gradient the judge's hook hands on to the solution's hooks: equal to a plain tensor in every
    operation (which returns plain tensors), it notes that some code other than the judge's hooks called a
    torch operation on it other than a metadata query (shape, dtype, device: _metadata_query). A solution
    that reads the gradient somewhere else (a dispatch mode watching AccumulateGrad's add, the judge's
    records found with gc) while its hooks do nothing, or only ask for grad.shape, leaves it unused."""

    used = None  # a one-item list the judge keeps: it holds no reference to the tensor, which dies unless used

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if not _in_judge_hook() and not _metadata_query(func):
            for leaf in torch.utils._pytree.tree_leaves((args, kwargs or {})):
                if isinstance(leaf, _Handed) and leaf.used is not None:
                    leaf.used[0] = True
        with torch._C.DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))


def _tracers(before: tuple) -> list[str]:
    """The profile and trace functions (sys.setprofile, sys.settrace) set now that were not set before the
    call (`before`: sys.getprofile(), sys.gettrace() then): they see every call and return of Python code,
    the judge's hooks among them, and the tensors those return. A debugger's or a coverage tool's, set
    before the call, do not count."""
    found = []
    for kind, function, earlier in (
        ("sys.setprofile", sys.getprofile(), before[0]),
        ("sys.settrace", sys.gettrace(), before[1]),
    ):
        if function is not None and function is not earlier:
            code = getattr(getattr(function, "__func__", function), "__code__", None)
            found.append(
                f"{kind}({getattr(function, '__name__', type(function).__name__)})"
                + (f", line {code.co_firstlineno}" if code is not None else "")
            )
    return found


def _modes() -> list[str]:
    """The TorchDispatchModes and TorchFunctionModes active now, by class name: code of the solution that
    sees every tensor operation, the judge's among them (its hook's rescaling, AccumulateGrad's add)."""
    if not (torch._C._len_torch_dispatch_stack() or torch._C._len_torch_function_stack()):
        return []
    try:
        active = (
            torch.utils._python_dispatch._get_current_dispatch_mode_stack()
            + torch.overrides._get_current_function_mode_stack()
        )
    except (AttributeError, RuntimeError):  # private helpers: only the names are lost
        active = []
    return [type(mode).__name__ for mode in active] or ["a mode"]


def _left_hooks(model) -> list[str]:
    """The hooks still registered on the model's parameters and modules, by where they sit. Read from
    the dicts that register_hook, register_post_accumulate_grad_hook and the module hooks fill (private
    attributes, the same on every supported torch): no public API lists them."""
    found = []
    for name, p in model.named_parameters():
        for kind, hooks in (
            ("register_hook", p._backward_hooks),
            ("register_post_accumulate_grad_hook", p._post_accumulate_grad_hooks),
        ):
            found += [f"{name}: {kind}"] * len(hooks or {})
    for name, module in model.named_modules():
        for kind in ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks"):
            found += [f"{name or 'model'}: {kind.lstrip('_')}"] * len(getattr(module, kind))
    return found


def _line_in(file: str) -> str:
    """'line 12: acc.register_prehook(...)': the innermost line of `file` on the current stack, or ''."""
    frame = sys._getframe(1)
    while frame is not None and os.path.realpath(frame.f_code.co_filename) != file:
        frame = frame.f_back
    if frame is None:
        return ""
    return f"line {frame.f_lineno}: {linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()}"


def _live(handle) -> bool:
    """Whether the hook a RemovableHandle stands for is still registered: its id is still in the dict of
    hooks it was made for, and that dict (of a tensor, a module or a graph node) still exists."""
    hooks = handle.hooks_dict_ref()
    return hooks is not None and handle.id in hooks


@contextlib.contextmanager
def _handles_made(file: str, made: list):
    """Append to `made` every RemovableHandle made inside the block, with the line of `file` that asked for it. Every way
    to register a hook hands one back: Tensor.register_hook and register_post_accumulate_grad_hook, the
    module hooks (global ones too), Node.register_hook and register_prehook on a graph node, and
    torch.autograd.graph.register_multi_grad_hook (through the tensor hooks it registers)."""
    cls = torch.utils.hooks.RemovableHandle
    original = cls.__dict__["__init__"]

    def tracked(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append((self, _line_in(file)))

    cls.__init__ = tracked
    try:
        yield
    finally:
        cls.__init__ = original


@contextlib.contextmanager
def _code_run(file: str):
    """The functions of `file` that Python calls inside the block, as a list of 'line N: code'."""
    calls, previous = [], sys.getprofile()

    def profile(frame, event, arg):
        if event == "call" and os.path.realpath(frame.f_code.co_filename) == file:
            calls.append(
                f"line {frame.f_code.co_firstlineno}: "
                f"{linecache.getline(frame.f_code.co_filename, frame.f_code.co_firstlineno).strip()}"
            )

    sys.setprofile(profile)
    try:
        yield calls
    finally:
        sys.setprofile(previous)


def _setting(case, seed):
    """A model whose .grad already holds one micro-batch's gradient (scaled by EARLIER_SCALE), the next
    micro-batch's loss, and a third batch for a later step. The two cases differ in depth and in which
    layers have a bias, so their parameter names differ: a solution that writes the names out fails one.
    Every parameter requires grad, as the exercise says."""
    torch.manual_seed(seed)
    if case == 1:
        model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
    else:
        model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 4), nn.Tanh(), nn.Linear(4, 1, bias=False))
    x, y = torch.randn(24, 6), torch.randn(24, 1)
    (nn.functional.mse_loss(model(x[:8]), y[:8]) * EARLIER_SCALE).backward()  # an earlier micro-batch
    old = {name: p.grad.clone() for name, p in model.named_parameters()}
    loss = nn.functional.mse_loss(model(x[8:16]), y[8:16])
    params = dict(model.named_parameters())
    new = dict(zip(params, torch.autograd.grad(loss, list(params.values()), retain_graph=True)))
    return model, loss, old, new, (x[16:], y[16:])


def _close(found: float, expected: float) -> bool:
    return abs(found - expected) <= TOLERANCE * max(1.0, abs(expected))


@exercise(
    "hooks/grad-norms",
    en="per-parameter gradient norms from hooks, handles removed",
    zh="用钩子得到每个参数的梯度范数，用完移除句柄",
)
def grad_norms(solution, check):
    file = os.path.realpath(solution.__file__)
    for case, seed in enumerate((0, 1), start=1):
        _one_model(solution, check, file, case, seed)


def _one_model(solution, check, file, case, seed):
    model, loss, old, new, later = _setting(case, seed)
    names = list(old)
    en, zh = f"model {case}: ", f"模型 {case}："

    # The judge's own hook on each parameter, registered before the solution's: it runs first, as each
    # gradient arrives, writes down what .grad held then and how many of the solution's hooks were in place,
    # and hands on the gradient rescaled by a random factor drawn anew for every call (RESCALE_STEP).
    # Only the solution's hooks on that parameter count: in its hook dict, or in those of its AccumulateGrad node.
    arrived, made, handed, hook_dicts, watched = {}, [], {}, {}, {}
    before = (sys.getprofile(), sys.gettrace())

    def arriving(grad, name, p):
        watched.setdefault(name, {"handed": [], "modes": [], "tracers": []})["modes"] += _modes()
        watched[name]["tracers"] += _tracers(before)
        kind = None if p.grad is None or type(p.grad) is torch.Tensor else type(p.grad).__name__
        held = p.grad.clone() if p.grad is not None and kind is None else None
        dicts = (*hook_dicts[name], p._post_accumulate_grad_hooks)  # that one is made by the first registration
        on_it = sum(_live(handle) and any(handle.hooks_dict_ref() is hooks for hooks in dicts) for handle, _ in made)
        arrived.setdefault(name, (held, on_it, kind))
        calls = handed.setdefault(name, [])
        factor = 1.0 + (len(calls) + 1 + _FACTORS.random() / 2) * RESCALE_STEP
        calls.append((factor, grad * factor))
        passed_on = calls[-1][1].clone().as_subclass(_Handed)
        passed_on.used = [False]
        watched[name]["handed"].append(passed_on.used)
        return passed_on

    judge_handles = [
        p.register_hook(lambda grad, name=name, p=p: arriving(grad, name, p)) for name, p in model.named_parameters()
    ]

    # The first post-accumulate hook of each parameter, right after AccumulateGrad's add: a mode that watched it
    # is still active then.
    def accumulated(name):
        watched.setdefault(name, {"handed": [], "modes": [], "tracers": []})["modes"] += _modes()
        watched[name]["tracers"] += _tracers(before)

    judge_handles += [
        p.register_post_accumulate_grad_hook(lambda p, name=name: accumulated(name))
        for name, p in model.named_parameters()
    ]
    # And a hook on the node that adds into each .grad: it sees the gradient added, after every tensor hook.
    # What the judge's hook handed on in the pass that reaches .grad: the gradient this backward delivered.
    # It also records whether .grad, at that moment, is a plain tensor holding the earlier gradient plus this one.
    added, delivered, summed = {}, {}, {}

    def adding(grad_outputs, name, p):
        added.setdefault(name, grad_outputs[0].clone())
        summed.setdefault(name, type(p.grad) is torch.Tensor and torch.equal(p.grad, old[name] + grad_outputs[0]))
        if name in handed:
            delivered.setdefault(name, handed[name][-1])

    for name, p in model.named_parameters():
        accumulate = p.view_as(p).grad_fn.next_functions[0][0]  # the same node that loss's graph ends in
        judge_handles.append(
            accumulate.register_hook(lambda grad_inputs, grad_outputs, name=name, p=p: adding(grad_outputs, name, p))
        )
        probe = accumulate.register_prehook(lambda grad_outputs: None)  # only to learn the node's pre-hook dict
        hook_dicts[name] = (p._backward_hooks, judge_handles[-1].hooks_dict_ref(), probe.hooks_dict_ref())
        probe.remove()

    check(
        en + "grad_norms(model, loss) returns a dict with one float per parameter name",
        zh + "grad_norms(model, loss) 返回一个字典，每个参数名对应一个 float",
    )
    # The hook dicts that outlive the call besides the model's (which _left_hooks reads): each AccumulateGrad
    # node's, which the next backward runs again, and torch's global module hooks. A hook written into one of
    # them by hand, under an id no handle knows, stays after every handle is removed: the sizes must not grow.
    outliving = [
        (f"{name}: AccumulateGrad {kind}", hooks)
        for name in names
        for kind, hooks in zip(("hooks", "pre-hooks"), hook_dicts[name][1:])
    ]
    outliving += [
        (f"nn.modules.module.{kind}", getattr(nn.modules.module, kind))
        for kind in (
            "_global_forward_pre_hooks",
            "_global_forward_hooks",
            "_global_backward_pre_hooks",
            "_global_backward_hooks",
        )
        if isinstance(getattr(nn.modules.module, kind, None), dict)
    ]
    sizes = [len(hooks) for _, hooks in outliving]
    with autograd_passes() as passes, _handles_made(file, made):
        norms = solution.grad_norms(model, loss)
    grown = [(where, len(hooks) - size) for (where, hooks), size in zip(outliving, sizes) if len(hooks) > size]
    for handle in judge_handles:
        handle.remove()
    if isinstance(norms, dict) and list(norms) == names[-1:] and len(names) > 1:
        raise Fail(
            f"grad_norms returned the last parameter's name only, {names[-1]}: every hook wrote its norm under "
            "that one name",
            f"grad_norms 只返回了最后一个参数的名字 {names[-1]}：每个钩子都把范数记在了这一个名字下",
            expected=(f"a dict with keys {names}", f"键为 {names} 的字典"),
            found=described(norms),
            hint_en="a lambda made in a loop reads `name` when it runs, after the loop has ended: bind it "
            "when the lambda is made, lambda grad, name=name: ...",
            hint_zh="循环里定义的 lambda 等到运行时才去读 `name`，那时循环早已结束：定义时就把它绑定下来，"
            "lambda grad, name=name: ...",
        )
    if not isinstance(norms, dict) or sorted(norms) != sorted(names):
        raise Fail(
            "grad_norms did not return a dict keyed by every parameter name",
            "grad_norms 返回的不是以全部参数名为键的字典",
            expected=(f"a dict with keys {names}", f"键为 {names} 的字典"),
            found=described(norms),
            hint_en="key by the names of model.named_parameters()",
            hint_zh="用 model.named_parameters() 给出的参数名做键",
        )
    not_float = [
        (f"{name}: {described(norms[name])[0]}", f"{name}：{described(norms[name])[1]}")
        for name in names
        if type(norms[name]) is not float
    ]
    if not_float:
        raise Fail(
            "a value grad_norms returned is not a Python float",
            "grad_norms 返回的值里有不是 Python float 的",
            expected=(
                "a float for each name, e.g. grad.norm().item()",
                "每个名字对应一个 float，比如 grad.norm().item()",
            ),
            found=not_float[0],
            hint_en=".item() turns the 0-d tensor grad.norm() into a float",
            hint_zh="grad.norm() 是 0 维张量，.item() 把它变成 float",
        )

    check(en + "one backward pass, loss.backward()", zh + "只做一次反向传播，即 loss.backward()")
    ours = list(passes)  # the judge's own passes ran before the recording
    if len(ours) != 1:
        found_en, found_zh = counted(ours) if ours else ("none", "没有")
        raise Fail(
            f"grad_norms ran {len(ours)} backward passes: expected exactly one, loss.backward()",
            f"grad_norms 做了 {len(ours)} 次反向传播：应当正好一次，即 loss.backward()",
            expected=("1 × backward()", "1 次 backward()"),
            found=(found_en, found_zh),
            hint_en="the hooks see the gradients during the one backward the training step runs anyway",
            hint_zh="钩子在训练步本来就要做的那次反向传播里看到梯度，不需要再多算一遍",
        )

    check(
        en + "when this backward's gradient reached each parameter, its .grad still held the earlier gradient",
        zh + "这次反向传播的梯度到达每个参数时，它的 .grad 里还是之前的梯度",
    )
    for name in names:
        held, _, kind = arrived.get(name, (None, 0, None))
        if kind is not None:
            raise Fail(
                f"{name}: when this backward's gradient arrived, .grad was not a plain tensor but a "
                f"{kind}: grad_norms replaced .grad "
                "to watch what backward adds into it, instead of reading the gradient in a hook",
                f"{name}：这次反向传播的梯度到达时，.grad 已经不是普通张量了：grad_norms 换掉了 .grad，"
                "去偷看反向传播往里加的东西，而不是在钩子里读梯度",
                expected=("a torch.Tensor", "torch.Tensor"),
                found=("a tensor subclass", "张量子类"),
                hint_en="leave .grad alone: p.register_hook(fn) calls fn with the gradient as it arrives, "
                "before it is added into .grad",
                hint_zh="别动 .grad：p.register_hook(fn) 在梯度到达、还没加进 .grad 时就用它调用 fn",
            )
        p = model.get_parameter(name)
        kept = p.grad is not None and name in delivered and torch.allclose(p.grad, old[name] + delivered[name][1])
        if name in arrived and (held is None or not held.any()) and not kept:
            raise Fail(
                f"{name}: when this backward's gradient arrived, .grad was "
                f"{'None' if held is None else 'all zeros'}, and after grad_norms returned it held no earlier "
                "gradient: grad_norms cleared .grad (zero_grad(), or .grad = None) before backward, and the "
                "earlier micro-batch's gradient is lost",
                f"{name}：这次反向传播的梯度到达时，.grad 是 {'None' if held is None else '全 0'}，grad_norms "
                "返回后 .grad 里也没有之前的梯度：grad_norms 在反向传播之前清空了 .grad（zero_grad()，或者 "
                ".grad = None），前一个微批次的梯度就此丢了",
                expected=("the earlier gradient, untouched", "之前的梯度，原封不动"),
                found="None" if held is None else ("zeros", "全 0"),
                hint_en="leave .grad alone, the training loop still needs the earlier gradient: the hook's "
                "argument is this backward's gradient alone",
                hint_zh="别动 .grad，训练循环还要用之前的梯度：钩子收到的参数本来就只是这一次的梯度",
            )
        if name not in arrived or held is None or not torch.equal(held, old[name]):
            raise Fail(
                f"{name}: when this backward's gradient arrived, .grad did not hold the earlier micro-batch's "
                "gradient: grad_norms set .grad aside to read the new gradient from it afterwards, "
                "instead of reading it in a hook",
                f"{name}：这次反向传播的梯度到达时，.grad 里已经不是前一个微批次的梯度了：grad_norms 先把 .grad "
                "挪开，再事后从 .grad 里读新梯度，而不是在钩子里读",
                expected=("the earlier gradient, untouched", "之前的梯度，原封不动"),
                found=("no gradient arrived", "没有梯度到达")
                if name not in arrived
                else "None"
                if held is None
                else ("another tensor", "另一个张量"),
                hint_en="leave .grad alone: p.register_hook(fn) calls fn with the gradient as it arrives, "
                "before it is added into .grad",
                hint_zh="别动 .grad：p.register_hook(fn) 在梯度到达、还没加进 .grad 时就用它调用 fn",
            )

    check(
        en + "a hook registered by grad_norms was in place on each parameter when its gradient arrived",
        zh + "每个参数的梯度到达时，grad_norms 已经在它上面挂好了钩子",
    )
    bare = [name for name in names if not arrived.get(name, (None, 0, None))[1]]
    if bare:
        raise Fail(
            f"{bare[0]}: no hook registered by grad_norms was in place on this parameter (or on the node that "
            "adds into its .grad) when its gradient arrived: the norm was not read from the gradient as "
            "backward delivered it",
            f"{bare[0]}：梯度到达时，grad_norms 没有在这个参数上（或往它的 .grad 里累加的节点上）挂着钩子："
            "范数不是从反向传播送来的梯度上读的",
            expected=(
                "a hook on each parameter, registered before loss.backward()",
                "每个参数上一个钩子，在 loss.backward() 之前注册",
            ),
            found=(
                f"{len(made)} hooks registered during grad_norms, none on this parameter then",
                f"grad_norms 期间注册了 {len(made)} 个钩子，当时没有一个挂在这个参数上",
            ),
            hint_en="register a hook on each parameter with p.register_hook(fn) before loss.backward(): "
            "backward calls fn(grad) with each gradient as it arrives",
            hint_zh="在 loss.backward() 之前用 p.register_hook(fn) 给每个参数注册钩子："
            "反向传播会在每个梯度到达时调用 fn(grad)",
        )

    check(
        en + "each value is the norm of the gradient this backward delivered, not of the accumulated .grad",
        zh + "每个值都是这次反向传播送来的梯度的范数，而不是累加后的 .grad 的范数",
    )
    for name, p in model.named_parameters():
        value = float(norms[name])
        if name not in delivered:
            raise Fail(
                f"{name}: loss.backward() added no gradient into .grad",
                f"{name}：loss.backward() 没有把梯度加进 .grad",
                expected=("this backward's gradient added into .grad", "这次反向传播的梯度加进 .grad"),
                found=("nothing added", "什么也没加进去"),
                hint_en="call loss.backward() once, with the hooks in place",
                hint_zh="在钩子挂好的情况下调用一次 loss.backward()",
            )
        factor, gradient = delivered[name]
        expected, accumulated_norm = gradient.norm().item(), (old[name] + gradient).norm().item()
        if _close(value, expected):
            continue
        if value == old[name].norm().item() and value != accumulated_norm:
            raise Fail(
                f"{name}: the norm of the earlier micro-batch's gradient: inside a register_hook hook, p.grad "
                "still holds the earlier gradient, this backward's is not added yet",
                f"{name}：这是前一个微批次的梯度的范数：在 register_hook 的钩子里，p.grad 还是之前的梯度，"
                "这一次的还没加进去",
                expected=f"{expected:.6g}",
                found=f"{value:.6g}",
                hint_en="use the hook's argument, not p.grad: norms[name] = grad.norm().item()",
                hint_zh="用钩子收到的参数，而不是 p.grad：norms[name] = grad.norm().item()",
            )
        if _close(value, accumulated_norm):
            raise Fail(
                f"{name}: the norm of the accumulated .grad (an earlier micro-batch's gradient plus this "
                f"one), not of this backward's gradient",
                f"{name}：这是累加后的 .grad 的范数（前一个微批次的梯度加上这一次的），不是这次反向传播的梯度的范数",
                expected=f"{expected:.6g}",
                found=f"{value:.6g}",
                hint_en=".grad, and what a post-accumulate hook reads from it, already holds the earlier "
                "gradient: register_hook sees the gradient as it arrives, before it is added",
                hint_zh=".grad（以及累加后钩子从中读到的）已经加上了之前的梯度："
                "register_hook 看到的是刚到达、还没加进去的梯度",
            )
        if p.grad is not None and _close(value, (p.grad - old[name]).norm().item()):
            raise Fail(
                f"{name}: the norm of .grad after backward minus .grad before; .grad held a gradient about a "
                "million times larger, and float32 rounding of the sum lost this backward's part: "
                "the difference is not this backward's gradient",
                f"{name}：这是反向传播后的 .grad 减去之前的 .grad 的范数；.grad 里原有的梯度大了约一百万倍，"
                "float32 求和的舍入吃掉了这一次的那份，差值已经不是这次的梯度",
                expected=f"{expected:.6g}",
                found=f"{value:.6g}",
                hint_en="read the gradient in the hook, when it arrives: record grad.norm().item() there",
                hint_zh="在钩子里、梯度到达时读它：就在钩子里记下 grad.norm().item()",
            )
        others = [("the gradient without that factor", "没乘这个系数的梯度", new[name])] + [
            (f"the gradient of another pass, ×{f:.4f}", f"另一次反向传播的梯度（×{f:.4f}）", g)
            for f, g in handed.get(name, [])
            if f != factor
        ]
        # The unhooked gradient times a factor near the judge's: a norm computed apart and scaled by a guess.
        unhooked = new[name].norm().item()
        guess = value / unhooked if unhooked else 0.0
        if abs(guess - factor) < 2 * RESCALE_STEP:
            others.append(
                (
                    f"the gradient without that factor, times {guess:.4f}",
                    f"没乘这个系数、另乘了 {guess:.4f} 的梯度",
                    new[name] * guess,
                )
            )
        for what_en, what_zh, other in others:
            if _close(value, other.norm().item()):
                raise Fail(
                    f"{name}: not the norm of the gradient this backward handed to grad_norms' hooks: no hook "
                    "of grad_norms read the gradient it received. The judge's own hook, which runs before "
                    f"yours, multiplied that gradient by {factor:.4f}; your value is the norm of {what_en}, "
                    "computed apart from it",
                    f"{name}：这不是这次反向传播交给 grad_norms 的钩子的那个梯度的范数：grad_norms 没有一个钩子"
                    f"读了它收到的梯度。评测自己的钩子在你的钩子之前运行，把这个梯度乘了 {factor:.4f}；"
                    f"你的值是{what_zh}的范数，是另外算出来的",
                    expected=f"{expected:.6g}",
                    found=f"{value:.6g}",
                    hint_en="compute the value inside the hook, from its argument: norms[name] = grad.norm().item()",
                    hint_zh="在钩子里，用它收到的参数算：norms[name] = grad.norm().item()",
                )
        raise Fail(
            f"{name}: the norm differs from that of this backward's gradient",
            f"{name}：范数和这次反向传播的梯度的范数不同",
            expected=f"{expected:.6g}",
            found=f"{value:.6g}",
            hint_en="the hook's argument is the gradient: record grad.norm().item() in your dict, and let "
            "the hook return None",
            hint_zh="钩子收到的参数就是梯度：把 grad.norm().item() 记进字典，钩子本身返回 None",
        )

    check(
        en + "the gradient added into each .grad is this backward's, unchanged, and .grad is the earlier "
        "gradient plus it",
        zh + "加进每个 .grad 的是这次反向传播的梯度，原样未改，.grad 等于之前的梯度加上它",
    )
    for name, p in model.named_parameters():
        if name not in added or not torch.equal(added[name], delivered[name][1]):
            raise Fail(
                f"{name}: the gradient added into .grad is not the one backward computed: a hook of grad_norms "
                "changed it (by returning a tensor, or by editing its argument in place)",
                f"{name}：加进 .grad 的不是反向传播算出的那个梯度：grad_norms 的钩子改了它"
                "（返回了一个张量，或者原地修改了收到的参数）",
                expected=("this backward's gradient, unchanged", "这次反向传播的梯度，原样未改"),
                found=(
                    "no gradient added" if name not in added else f"a gradient of norm {added[name].norm().item():.6g}",
                    "没有梯度加进去" if name not in added else f"范数为 {added[name].norm().item():.6g} 的梯度",
                ),
                hint_en="a hook that only watches returns None and does not modify its argument in place",
                hint_zh="只看不改的钩子返回 None，也不原地修改收到的梯度",
            )
        if not summed.get(name):
            raise Fail(
                f"{name}: when AccumulateGrad had added this backward's gradient, .grad was not the earlier "
                "gradient plus it: grad_norms moved .grad aside while backward ran, and put it back afterwards",
                f"{name}：AccumulateGrad 把这次的梯度加进去之后，.grad 并不等于之前的梯度加上它："
                "grad_norms 在反向传播期间把 .grad 挪开了，事后才放回去",
                expected=(
                    "the earlier gradient plus this one, in a plain tensor",
                    "之前的梯度加上这一次的，放在普通张量里",
                ),
                found=("another tensor", "另一个张量"),
                hint_en="leave .grad alone and read the norm from the hook's argument: "
                "norms[name] = grad.norm().item()",
                hint_zh="别动 .grad，用钩子收到的参数算范数：norms[name] = grad.norm().item()",
            )
        if p.grad is None or not torch.equal(p.grad, old[name] + delivered[name][1]):
            raise Fail(
                f"{name}.grad is not the earlier gradient plus this backward's: the monitor changed training",
                f"{name}.grad 不等于之前的梯度加上这一次的：监控改变了训练",
                expected=("the accumulated gradient", "累加后的梯度"),
                found="None" if p.grad is None else ("another tensor", "另一个张量"),
                hint_en="a hook that only watches returns None and leaves its argument and .grad alone",
                hint_zh="只看不改的钩子返回 None，既不原地修改收到的梯度，也不去动 .grad",
            )

    check(
        en + "code of grad_norms called a torch operation on the gradient its hook received, on each parameter, "
        "with no profiler of it watching",
        zh + "每个参数上，grad_norms 的代码都对它的钩子收到的梯度调用过 torch 运算，也没有它设置的 profiler 在旁观",
    )
    for name in names:
        if not any(used[0] for used in watched.get(name, {"handed": []})["handed"]):
            raise Fail(
                f"{name}: no code of grad_norms called a torch operation on the gradient the judge's hook handed "
                "on to its hooks (a query of its shape, dtype or device does not count): the norm was read "
                "elsewhere, not from the hook's argument",
                f"{name}：评测的钩子交给 grad_norms 的钩子的梯度，grad_norms 没有一处代码对它调用过 torch 运算"
                "（只查询形状、dtype 或 device 的不算）：范数是从别处读到的，不是从钩子收到的参数算的",
                expected=(
                    "a torch operation on the hook's argument, e.g. grad.norm()",
                    "对钩子收到的参数调用 torch 运算，比如 grad.norm()",
                ),
                found=("no torch operation on the gradient handed on", "交出去的梯度上没有调用过任何 torch 运算"),
                hint_en="compute the value inside the hook, from its argument: norms[name] = grad.norm().item()",
                hint_zh="在钩子里，用它收到的参数算：norms[name] = grad.norm().item()",
            )
        tracers = watched.get(name, {"tracers": []})["tracers"]
        if tracers:
            raise Fail(
                f"{name}: when its gradient arrived, or was added into .grad, a profile or trace function "
                f"set during grad_norms was active ({tracers[0]}): it sees what the judge's own hook returns, "
                "and reads the gradient without any hook",
                f"{name}：它的梯度到达、或者加进 .grad 时，grad_norms 期间设置的一个 profile 或 trace 函数"
                f"正在起作用（{tracers[0]}）：它能看到评测自己的钩子返回的东西，不用钩子也能读到梯度",
                expected=("no profile or trace function of yours", "没有你设置的 profile 或 trace 函数"),
                found=tracers[0],
                hint_en="compute the value inside the hook, from its argument: norms[name] = grad.norm().item()",
                hint_zh="在钩子里，用它收到的参数算：norms[name] = grad.norm().item()",
            )

    check(
        en + "no TorchDispatchMode or TorchFunctionMode watched the gradients arrive",
        zh + "梯度到达时，没有 TorchDispatchMode 或 TorchFunctionMode 在旁观",
    )
    for name in names:
        modes = watched.get(name, {"modes": []})["modes"]
        if modes:
            raise Fail(
                f"{name}: when its gradient arrived, or was added into .grad, {modes[0]} was active: a mode "
                "sees every tensor operation of the pass, the judge's and AccumulateGrad's among them, "
                "and can read the gradient without any hook",
                f"{name}：它的梯度到达、或者加进 .grad 时，{modes[0]} 正处于激活状态：mode 能看到这次反向传播里"
                "每一个张量运算，包括评测自己的和 AccumulateGrad 的，不用钩子也能读到梯度",
                expected=("no mode active during backward", "反向传播期间没有任何 mode"),
                found=modes[0],
                hint_en="leave the modes out: a hook on each parameter reads its gradient as it arrives",
                hint_zh="不要用 mode：每个参数上挂一个钩子，梯度到达时就能读到它",
            )

    check(
        en + "no hook is left after grad_norms returns, and a later backward runs none of its code",
        zh + "grad_norms 返回之后不留任何钩子，之后的反向传播也不再运行它的代码",
    )
    left = _left_hooks(model)
    if left:
        raise Fail(
            f"{len(left)} hook{'s are' if len(left) != 1 else ' is'} still registered after grad_norms "
            f"returned: each later backward calls {'them' if len(left) != 1 else 'it'} again",
            f"grad_norms 返回后还有 {len(left)} 个钩子挂着：以后每次反向传播都还会调用它们",
            expected=("no hooks", "没有钩子"),
            found=", ".join(left[:4]) + (" …" if len(left) > 4 else ""),
            hint_en="keep the handle that each register_... call returns and call handle.remove() before "
            "returning (in a finally: block, so that an error in backward removes them too)",
            hint_zh="留下每次 register_... 返回的句柄，返回之前调用 handle.remove()"
            "（放在 finally: 里，反向传播出错时也能移除）",
        )
    live = [line for handle, line in made if _live(handle)]
    if live:
        raise Fail(
            f"{len(live)} hook{'s' if len(live) != 1 else ''} registered during grad_norms "
            f"{'are' if len(live) != 1 else 'is'} still registered (not on a parameter or a module: on a graph "
            "node, for one, which lives as long as a graph through it, here the caller's loss, and is reused "
            "by the next forward)",
            f"grad_norms 期间注册的钩子还有 {len(live)} 个挂着（不在参数或模块上，比如在计算图的节点上："
            "只要还有经过它的图活着就一直在，这里是调用方留着的 loss，下一次前向还会接着用它）",
            expected=("every handle removed", "每个句柄都已移除"),
            found=", ".join(sorted(set(live))[:2]) or ("a hook", "一个钩子"),
            hint_en="call remove() on every handle a register_... call returned, whatever it was registered on",
            hint_zh="不管钩子挂在什么上，每次 register_... 返回的句柄都要调用 remove()",
        )
    if grown:
        extra = sum(count for _, count in grown)
        raise Fail(
            f"{extra} hook{'s were' if extra != 1 else ' was'} added during grad_norms to a hook dict that "
            "outlives the call and no handle removed "
            f"{'them' if extra != 1 else 'it'}: {grown[0][0]} holds {grown[0][1]} more than before the call, "
            "and a later forward or backward runs it",
            f"grad_norms 期间有 {extra} 个钩子被加进了调用结束后依然存在的钩子字典，没有哪个句柄移除它们："
            f"{grown[0][0]} 比调用前多了 {grown[0][1]} 个，之后的前向或反向传播还会运行它",
            expected=("the same number of hooks as before the call", "钩子数和调用前一样"),
            found=", ".join(f"{where}: +{count}" for where, count in grown[:3]) + (" …" if len(grown) > 3 else ""),
            hint_en="register hooks only through calls that return a handle, and remove every handle before returning",
            hint_zh="只用返回句柄的方式注册钩子，返回之前把每个句柄都移除",
        )
    x, y = later
    with _code_run(file) as ran:
        nn.functional.mse_loss(model(x), y).backward()  # a later micro-batch; `loss` is still held
    if ran:
        raise Fail(
            f"a later forward and backward of the model ran grad_norms' code {len(ran)} times: a hook of it "
            "is still in place",
            f"之后对模型的一次前向和反向传播又运行了 grad_norms 的代码 {len(ran)} 次：它的钩子还挂着",
            expected=("none of grad_norms' code", "不运行 grad_norms 的任何代码"),
            found=ran[0],
            hint_en="register hooks only through calls that return a handle, and remove every handle before returning",
            hint_zh="只用返回句柄的方式注册钩子，返回之前把每个句柄都移除",
        )
