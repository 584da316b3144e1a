"""Exercises of the chapter gradient-checking."""

import _thread
import contextlib
import os
import sys
import threading
from dataclasses import dataclass, field

import torch
from torch.autograd import gradcheck
from torch.autograd.gradcheck import GradcheckError
from torch.utils._python_dispatch import TorchDispatchMode

from exercise_judge.checking import Fail, exercise
from exercise_judge.checks._shared import refuse_ctx_attributes, refuse_passes, require_function_class
from exercise_judge.spies import TorchCalls, autograd_passes, counted

# Every case gets every check, the method's included: (shape of x, seed).
CASES = (((4,), 1), ((2, 3), 2))

# Where the float32 step is decides what gradcheck makes of it (claims.py of the chapter:
# float32_forward_fails_gradcheck_float32_backward_passes).
FORWARD32_EN = (
    "right to about seven digits only, the precision of float32: don't cast inside forward (.float()). "
    "A float32 forward puts float32 rounding into gradcheck's central differences, and with values of "
    "order one gradcheck then fails even a correct backward"
)
FORWARD32_ZH = (
    "只对到七位左右，正是 float32 的精度：forward 里不要转换类型（.float()）。forward 用了 float32，"
    "gradcheck 的中心差分里就带上了 float32 的舍入误差，数值在 1 左右时，正确的 backward 也通不过"
)
BACKWARD32_EN = (
    "right to about seven digits only, the precision of float32: don't cast inside backward (.float()). "
    "gradcheck would let this through (float32 rounding is far inside its rtol of 1e-3); this judge "
    "checks the gradient to 1e-10"
)
BACKWARD32_ZH = (
    "只对到七位左右，正是 float32 的精度：backward 里不要转换类型（.float()）。gradcheck 放得过这种误差"
    "（float32 的舍入误差远在它的 rtol = 1e-3 之内）；本评测按 1e-10 检查梯度"
)
# Ops that only forward-mode AD calls (torch.autograd.forward_ad, and torch.func.jvp, jacfwd, linearize on it).
FORWARD_MODE = ("_make_dual", "_unpack_dual")
# Calls that make a complex tensor from real ones: the complex-step method starts with one of them.
COMPLEX = ("complex", "view_as_complex", "polar")
# Calls that hand a tensor's values out of torch, to Python, NumPy, another library or another process, where the
# judge sees nothing of what is done with them (complex numbers, symbolic algebra, autograd in a worker process).
OUT_OF_TORCH = (
    "tolist",
    "numpy",
    "__array__",
    "__dlpack__",
    "item",
    "__float__",
    "__int__",
    "__complex__",
    "__index__",
    "__repr__",
    "__format__",
    "untyped_storage",
    "storage",
    "_typed_storage",
    "data_ptr",
)

# Where torch's own Python files are.
TORCH_FILES = os.path.dirname(torch.__file__) + os.sep

# Where another thread starts: the spies (a TorchFunctionMode, a TorchDispatchMode, saved-tensor hooks) are
# thread-local and would not see what runs there. threading.Thread.start goes through threading's own reference to
# _thread.start_new_thread, and torch.jit.fork (also torch.jit._fork) through torch._C.fork.
THREAD_STARTS = (
    (threading, "_start_new_thread", "threading.Thread.start"),
    (_thread, "start_new_thread", "_thread.start_new_thread"),
    (torch._C, "fork", "torch.jit.fork"),
)


@contextlib.contextmanager
def thread_starts(found):
    """Every thread start inside the block adds its name to `found`, then starts as usual."""
    originals = [(module, attribute, getattr(module, attribute)) for module, attribute, _ in THREAD_STARTS]

    def spy(start, name):
        def started(*args, **kwargs):
            found.append(name)
            return start(*args, **kwargs)

        return started

    for (module, attribute, start), (_, _, name) in zip(originals, THREAD_STARTS):
        setattr(module, attribute, spy(start, name))
    try:
        yield found
    finally:
        for module, attribute, start in originals:
            setattr(module, attribute, start)


def is_op_overload(name):
    """torch.ops.<namespace>.<op>.<overload> (an OpOverload, such as aten.pow.Tensor_Scalar) is named "op.overload";
    no torch function or Tensor method has a dot in its name. A graph that make_fx traced from autograd
    calls them."""
    return "." in name


def said(error):
    """'RuntimeError: the first line of its message', for a verdict."""
    return f"{type(error).__name__}: {(str(error).splitlines() or [''])[0][:200]}"


def relative_error(found, expected):
    return ((found - expected).abs() / expected.abs().clamp_min(1e-300)).max().item()


def draw(*shape, seed=0):
    torch.manual_seed(seed)
    return torch.randn(*shape, dtype=torch.float64, requires_grad=True)


def run_backward(out, x, grad_output):
    """x's gradient through the reader's backward, or a Fail when autograd rejects what it returned."""
    try:
        (grad,) = torch.autograd.grad(out, x, grad_outputs=grad_output, retain_graph=True, allow_unused=True)
    except NotImplementedError:
        raise  # the starter's backward: the judge shows the reader's line
    except RuntimeError as error:
        raise Fail(
            "autograd rejected what Cube.backward returned",
            "autograd 不接受 Cube.backward 的返回值",
            expected=(
                f"one tensor of shape {tuple(x.shape)}, the gradient with respect to x",
                f"一个形状为 {tuple(x.shape)} 的张量：对 x 的梯度",
            ),
            found=f"RuntimeError: {str(error).splitlines()[0][:200]}",
            hint_en="backward returns one gradient per input of forward (ctx excluded), each shaped like that input",
            hint_zh="backward 为 forward 的每个输入（ctx 除外）返回一个梯度，形状和那个输入相同",
        ) from None
    if grad is None:
        raise Fail(
            "Cube.backward returned None for x",
            "Cube.backward 对 x 返回了 None",
            expected=("a tensor shaped like x", "和 x 形状相同的张量"),
            found="None",
            hint_en="return the gradient, don't just compute it",
            hint_zh="要 return 梯度，光算出来不够",
        )
    return grad


def jacobian_from_backward(cube, x):
    """The Jacobian built as gradcheck builds it (it does so twice): a backward with a one-hot
    grad_output for each output element; column j is what backward returned for output j (rows: inputs)."""
    out = cube(x)
    columns = []
    for j in range(out.numel()):
        one_hot = torch.zeros(out.numel(), dtype=out.dtype)
        one_hot[j] = 1
        columns.append(run_backward(out, x, one_hot.view_as(out)).reshape(-1))
    return torch.stack(columns, dim=1)


class Calls(TorchCalls):
    """TorchCalls that also knows whether a torch call is running (depth > 0), and keeps in `errors` what the torch
    calls raised, whoever caught it."""

    depth = 0

    def __init__(self):
        super().__init__()
        self.errors = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.depth += 1
        try:
            return super().__torch_function__(func, types, args, kwargs)
        except Exception as error:
            self.errors.append(said(error))
            raise
        finally:
            self.depth -= 1


class AtenOps(TorchDispatchMode):
    """The aten ops that ran while no torch call of `calls` was running: ops that no torch function or Tensor method
    called from Python accounts for (a TorchScript graph, a region where torch-function handling is disabled).
    aten::detach is left out: ctx.saved_tensors runs one when a saved-tensor hook unpacks x, and it computes nothing."""

    def __init__(self, calls):
        super().__init__()
        self.calls, self.unaccounted = calls, []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if self.calls.depth == 0 and func.name() != "aten::detach":
            self.unaccounted.append(func.name())
        with torch._C.DisableTorchFunction():  # the op itself, not one more torch call for `calls`
            return func(*args, **(kwargs or {}))


@dataclass
class Watched:
    """What the reader's backward did over all its calls: the backward passes it asked for, the tensors it saved
    for a backward pass of its own (a graph recorded by going below torch.autograd.grad, to the engine), the
    forward-mode ops it called, and the torch calls it made on complex tensors."""

    passes: list = field(default_factory=list)
    saved: int = 0
    forward_mode: list = field(default_factory=list)
    complex_calls: list = field(default_factory=list)
    op_overloads: list = field(default_factory=list)
    out_of_torch: list = field(default_factory=list)
    unaccounted: list = field(default_factory=list)
    threads: list = field(default_factory=list)
    meta_error: str = None  # what the rerun on meta tensors raised, or the wrong gradient it returned
    last_calls: list = None  # the names of the torch calls of the latest backward call, in order
    on_meta: bool = False  # the rerun on meta tensors is running
    caught_on_meta: list = field(default_factory=list)  # exceptions raised, and caught, inside backward on meta
    meta_differs: tuple = None  # the torch calls of backward on the CPU and on meta, when they differ


@contextlib.contextmanager
def exceptions_raised(found):
    """Every exception that reaches a frame of this thread inside the block adds its type and message to `found`,
    whether a frame catches it or not. Left out: frames of torch's own files (torch 2.14 tries an attribute and
    catches the AttributeError in every torch call), StopIteration, which a generator that ends raises
    (contextlib, in torch's handling of a torch call) and is no error, and the KeyError and ImportError of a
    lookup of an optional module (torch without numpy raises KeyError 'numpy' outside its own files). A read of
    a meta tensor's values raises none of these."""

    def local(frame, event, arg):
        if (
            event == "exception"
            and not issubclass(arg[0], (StopIteration, KeyError, ImportError))
            and not frame.f_code.co_filename.startswith(TORCH_FILES)
        ):
            found.append(said(arg[1]))
        return local

    def call(frame, event, arg):
        frame.f_trace_lines = False
        return local

    previous = sys.gettrace()
    sys.settrace(call)
    try:
        yield found
    finally:
        sys.settrace(previous)


@contextlib.contextmanager
def watched_backward(function_class, watched):
    """Every call of function_class.backward inside the block, whoever makes it (the engine during .sum() and
    gradcheck, or the judge calling the node), runs under the spies, which add to `watched`. Watching every
    call leaves a backward nothing to tell a watched call from an unwatched one by."""
    original = function_class.__dict__.get("backward")
    user = function_class.backward

    def backward(ctx, *grad_outputs):
        saved, raised = [], []
        seen = Calls()
        watched.last_calls = None
        with (
            autograd_passes() as passes,
            seen,
            AtenOps(seen) as aten,
            thread_starts(watched.threads),
            torch.autograd.graph.saved_tensors_hooks(lambda tensor: saved.append(tensor) or tensor, lambda t: t),
        ):
            # On meta tensors every way of reading values raises; a backward that catches that error has some
            # other way to the derivative on the CPU.
            with exceptions_raised(raised) if watched.on_meta else contextlib.nullcontext():
                result = user(ctx, *grad_outputs)
        if watched.on_meta:
            watched.caught_on_meta += seen.errors + raised
        watched.last_calls = [call.name for call in seen.calls]
        # Under TorchCalls, torch.autograd.grad and .backward dispatch to themselves once more, from their own
        # module: that second record is the same pass.
        watched.passes += [found for found in passes if not found.by(torch.autograd.__file__)]
        watched.saved += len(saved)
        watched.forward_mode += [call.name for call in seen.calls if call.name in FORWARD_MODE]
        watched.complex_calls += [
            call.name
            for call in seen.calls
            if call.name in COMPLEX or (call.tensor is not None and call.tensor.is_complex())
        ]
        watched.op_overloads += [call.name for call in seen.calls if is_op_overload(call.name)]
        watched.out_of_torch += [call.name for call in seen.calls if call.name in OUT_OF_TORCH]
        watched.unaccounted += aten.unaccounted
        return result

    function_class.backward = staticmethod(backward)
    try:
        yield watched
    finally:
        if original is None:
            del function_class.backward
        else:
            function_class.backward = original


def refuse_autograd_in_backward(watched):
    passes, saved, forward_mode = watched.passes, watched.saved, watched.forward_mode
    asked_en, asked_zh = counted(passes)
    expected = ("grad_output times 3x², written out", "亲手写出的 grad_output 乘以 3x²")
    hint = (
        "return grad_output * 3 * x ** 2, computed from the saved x",
        "返回 grad_output * 3 * x ** 2，用保存的 x 来算",
    )
    if watched.threads:
        names = sorted(set(watched.threads))
        raise Fail(
            "Cube.backward started another thread, where the judge cannot see how the derivative is computed: "
            "the exercise is to write it out with torch calls in backward itself",
            "Cube.backward 启动了另一个线程，评测看不到导数在那里是怎么算的：这道练习要你在 backward 里"
            "直接用 torch 调用把导数写出来",
            expected=expected,
            found=(
                f"{len(watched.threads)} thread starts ({', '.join(names)})",
                f"启动了 {len(watched.threads)} 次线程（{'、'.join(names)}）",
            ),
            hint_en=hint[0] + ", in the thread that called backward",
            hint_zh=hint[1] + "，就在调用 backward 的线程里算",
        )
    refuse_passes(
        passes,
        (
            f"Cube.backward asked autograd for the derivative ({asked_en}): the exercise is to write it by hand",
            f"Cube.backward 让 autograd 替它求导（{asked_zh}）：这道练习要你亲手写出导数",
        ),
        expected,
        hint,
    )
    if forward_mode:
        raise Fail(
            "Cube.backward asked autograd for the derivative in forward mode (dual numbers: "
            "torch.autograd.forward_ad, or torch.func.jvp, jacfwd, linearize): the exercise is to write it by "
            "hand",
            "Cube.backward 让 autograd 用前向模式替它求导（对偶数：torch.autograd.forward_ad，或 "
            "torch.func.jvp、jacfwd、linearize）：这道练习要你亲手写出导数",
            expected=expected,
            found=tuple(
                separator.join(f"{forward_mode.count(name)} × {name}" for name in FORWARD_MODE if name in forward_mode)
                for separator in (", ", "、")
            ),
            hint_en=hint[0],
            hint_zh=hint[1],
        )
    if saved:
        raise Fail(
            "Cube.backward recorded a graph and saved tensors for a backward pass of its own: it asked "
            "autograd for the derivative, below torch.autograd.grad",
            "Cube.backward 自己记录了计算图，为一次反向传播保存了张量：它绕过 torch.autograd.grad，"
            "还是让 autograd 替它求导",
            expected=(
                expected[0] + ", which under no_grad saves nothing",
                expected[1] + "，在 no_grad 下不保存任何张量",
            ),
            found=(
                f"{saved} tensor{'' if saved == 1 else 's'} saved while backward ran",
                f"backward 运行时保存了 {saved} 个张量",
            ),
            hint_en=hint[0],
            hint_zh=hint[1],
        )
    if watched.op_overloads:
        names = sorted(set(watched.op_overloads))
        raise Fail(
            "Cube.backward replayed aten ops that autograd traced, or called torch.ops operator overloads as "
            "such a graph does (make_fx): the exercise is to write the derivative out with ordinary "
            "torch calls",
            "Cube.backward 重放了 autograd 追踪下来的 aten 算子，或者像这种计算图那样直接调用 "
            "torch.ops 里的算子重载（make_fx）：这道练习要你用普通的 torch 调用把导数写出来",
            expected=expected,
            found=(
                f"{len(watched.op_overloads)} calls of torch.ops operator overloads ({', '.join(names[:4])})",
                f"{len(watched.op_overloads)} 次 torch.ops 算子重载调用（{'、'.join(names[:4])}）",
            ),
            hint_en=hint[0],
            hint_zh=hint[1],
        )
    if watched.out_of_torch:
        names = sorted(set(watched.out_of_torch))
        raise Fail(
            "Cube.backward took a tensor's values out of torch (to Python, NumPy or anywhere else), where the "
            "judge cannot see how the derivative is computed: the exercise is to write it out with torch calls",
            "Cube.backward 把张量的值拿出了 torch（交给 Python、NumPy 或别的地方），评测看不到导数在那里"
            "是怎么算的：这道练习要你用 torch 调用把导数写出来",
            expected=expected,
            found=(
                f"{len(watched.out_of_torch)} calls that hand values out of torch ({', '.join(names[:4])})",
                f"{len(watched.out_of_torch)} 次把值交出 torch 的调用（{'、'.join(names[:4])}）",
            ),
            hint_en=hint[0] + ", all in torch: no tolist, numpy, item, float() or print inside backward",
            hint_zh=hint[1] + "，全程用 torch：backward 里不要 tolist、numpy、item、float() 或 print",
        )
    if watched.meta_error is not None:
        raise Fail(
            "Cube.backward did not run on meta tensors, which have a shape and a dtype but no values: it needs "
            "the values outside torch calls, or makes tensors on another device than x",
            "Cube.backward 在 meta 张量上运行不了（meta 张量只有形状和 dtype，没有值）：它要在 torch 调用之外"
            "用到值，或者在 x 以外的设备上创建了张量",
            expected=(
                "a meta gradient shaped like x, from the same torch calls as on the CPU",
                "和 x 形状相同的 meta 梯度，由和 CPU 上相同的 torch 调用算出",
            ),
            found=watched.meta_error,
            hint_en="return grad_output * 3 * x ** 2, all in torch: Python numbers are fine, values taken out "
            "of x (tolist, numpy, item, dlpack) are not, and a tensor you create goes on x's device "
            "(torch.full_like(x, 3))",
            hint_zh="返回 grad_output * 3 * x ** 2，全程用 torch：可以用 Python 数字，不能把 x 的值取出来"
            "（tolist、numpy、item、dlpack），自己创建的张量要放在 x 的设备上（torch.full_like(x, 3)）",
        )
    if watched.caught_on_meta or watched.meta_differs is not None:
        if watched.caught_on_meta:
            found = (
                f"on meta it caught {watched.caught_on_meta[0]}",
                f"在 meta 张量上它捕获了 {watched.caught_on_meta[0]}",
            )
        else:
            on_cpu, on_meta = watched.meta_differs
            at = next((i for i, (a, b) in enumerate(zip(on_cpu, on_meta)) if a != b), min(len(on_cpu), len(on_meta)))
            shown = [
                ", ".join(calls[at : at + 4]) + (", ..." if len(calls) > at + 4 else "") or "nothing"
                for calls in (on_cpu, on_meta)
            ]
            found = (
                f"from torch call {at + 1} on, {shown[0]} on the CPU ({len(on_cpu)} calls in all) and "
                f"{shown[1]} on meta ({len(on_meta)} in all)",
                f"从第 {at + 1} 次 torch 调用起，CPU 上是 {shown[0]}（共 {len(on_cpu)} 次），meta 上是 "
                f"{shown[1]}（共 {len(on_meta)} 次）",
            )
        raise Fail(
            "Cube.backward did otherwise on meta tensors, which have no values, than on the CPU: it tells the "
            "meta run apart, where values cannot leave torch",
            "Cube.backward 在没有值的 meta 张量上和在 CPU 上做法不同：它认得出 meta 上的那一遍，"
            "而在那一遍里值交不出 torch",
            expected=(
                "the same torch calls on meta tensors as on the CPU, none of them failing",
                "在 meta 张量上做和 CPU 上相同的 torch 调用，一次也不出错",
            ),
            found=found,
            hint_en=hint[0] + ", the same for every device, with no try/except",
            hint_zh=hint[1] + "，对任何设备都一样，不用 try/except",
        )
    if watched.unaccounted:
        names = sorted(set(watched.unaccounted))
        raise Fail(
            "Cube.backward ran aten ops that no torch call accounts for (a compiled graph such as TorchScript "
            "replays, or torch-function handling switched off): the exercise is to write the derivative out "
            "with ordinary torch calls",
            "Cube.backward 执行了没有任何 torch 调用对应的 aten 算子（TorchScript "
            "之类的编译图在重放，或者关掉了 torch function 处理）：这道练习要你用普通的 torch 调用把导数写出来",
            expected=expected,
            found=(
                f"{len(watched.unaccounted)} aten ops outside any torch call ({', '.join(names[:4])})",
                f"{len(watched.unaccounted)} 个 aten 算子不在任何 torch 调用之内（{'、'.join(names[:4])}）",
            ),
            hint_en=hint[0],
            hint_zh=hint[1],
        )
    if watched.complex_calls:
        names = sorted(set(watched.complex_calls))
        raise Fail(
            "Cube.backward computed the derivative numerically, in complex arithmetic (the complex-step "
            "method): the exercise is to write it out",
            "Cube.backward 用复数运算数值求导（复步长法）：这道练习要你把导数写出来",
            expected=expected,
            found=(
                f"{len(watched.complex_calls)} torch calls on complex tensors ({', '.join(names[:4])})",
                f"对复数张量做了 {len(watched.complex_calls)} 次 torch 调用（{'、'.join(names[:4])}）",
            ),
            hint_en=hint[0],
            hint_zh=hint[1],
        )


@exercise(
    "gradient-checking/custom-function",
    en="a custom autograd Function for x³: save_for_backward, a backward by hand, checked by gradcheck",
    zh="为 x³ 写一个自定义 autograd Function：save_for_backward、亲手写的 backward，并用 gradcheck 检查",
)
def custom_function(solution, check):
    check("Cube is a torch.autograd.Function", "Cube 是一个 torch.autograd.Function")
    require_function_class(
        solution,
        "Cube",
        (
            "keep the class of the starter file and fill in its two static methods",
            "保留起始文件里的类，填好它的两个静态方法",
        ),
    )
    for shape, seed in CASES:
        with watched_backward(solution.Cube, Watched()) as watched:
            case(solution, check, shape, seed, watched)


def case(solution, check, shape, seed, watched):
    case_en, case_zh = f"x of shape {shape}", f"x 的形状为 {shape}"

    check(
        f"{case_en}: cube(x) equals x³, in float64, and goes through Cube",
        f"{case_zh}：cube(x) 等于 x³，是 float64，并且经过 Cube",
    )
    x = draw(*shape, seed=seed)
    out = solution.cube(x)
    if not isinstance(out, torch.Tensor) or out.shape != x.shape:
        raise Fail(
            "cube(x) did not return a tensor shaped like x",
            "cube(x) 返回的不是和 x 同形状的张量",
            expected=(f"a tensor of shape {tuple(x.shape)}", f"形状为 {tuple(x.shape)} 的张量"),
            found=(f"a tensor of shape {tuple(out.shape)}", f"形状为 {tuple(out.shape)} 的张量")
            if isinstance(out, torch.Tensor)
            else f"{type(out).__name__}: {out!r}"[:80],
            hint_en="return Cube.apply(x)",
            hint_zh="返回 Cube.apply(x)",
        )
    if out.dtype != torch.float64:
        raise Fail(
            f"cube(x) turned float64 into {out.dtype}",
            f"cube(x) 把 float64 变成了 {out.dtype}",
            expected="torch.float64",
            found=str(out.dtype),
            hint_en="don't cast inside the Function: a float32 forward puts float32 rounding into gradcheck's "
            "central differences, and with values of order one gradcheck then fails even a correct "
            "backward",
            hint_zh="不要在 Function 里转换类型：forward 用了 float32，gradcheck 的中心差分里就带上了 float32 "
            "的舍入误差，数值在 1 左右时，正确的 backward 也通不过",
        )
    difference = (out.detach() - x.detach() ** 3).abs().max().item()
    if not difference <= 1e-12:  # NaN fails too
        rounded = relative_error(out.detach(), x.detach() ** 3) < 1e-5
        raise Fail(
            "cube(x) is not x³",
            "cube(x) 不等于 x³",
            expected=("x ** 3", "x ** 3"),
            found=(f"off by up to {difference:.3g}", f"最多差 {difference:.3g}"),
            hint_en=FORWARD32_EN if rounded else "forward returns x ** 3",
            hint_zh=FORWARD32_ZH if rounded else "forward 返回 x ** 3",
        )
    node = type(out.grad_fn).__name__ if out.grad_fn is not None else "None"
    if node != f"{solution.Cube.__name__}Backward":
        raise Fail(
            f"cube(x) did not go through Cube: its grad_fn is {node}",
            f"cube(x) 没有经过 Cube：它的 grad_fn 是 {node}",
            expected=f"grad_fn {solution.Cube.__name__}Backward",
            found=f"grad_fn {node}",
            hint_en="call the Function with Cube.apply(x): calling Cube.forward directly, or computing x ** 3 "
            "in cube, leaves your backward out of the graph",
            hint_zh="用 Cube.apply(x) 调用这个 Function：直接调用 Cube.forward，或者在 cube 里直接算 x ** 3，"
            "你的 backward 都不会进入计算图",
        )

    check(f"{case_en}: the gradient of cube(x).sum() is 3x²", f"{case_zh}：cube(x).sum() 的梯度是 3x²")
    grad = run_backward(out.sum(), x, None)
    expected = 3 * x.detach() ** 2
    float32_only = False
    if grad.shape != x.shape:
        found = (f"a gradient of shape {tuple(grad.shape)}", f"形状为 {tuple(grad.shape)} 的梯度")
    else:
        ratio = grad / expected
        if relative_error(grad, expected) < 1e-5:  # right to float32 precision only
            float32_only = True
            found = (
                f"3x² to float32 precision only (relative error {relative_error(grad, expected):.1g})",
                f"只在 float32 精度下等于 3x²（相对误差 {relative_error(grad, expected):.1g}）",
            )
        elif torch.allclose(ratio, ratio.mean().expand_as(ratio)):  # a constant factor off, such as 3x² · 3
            found = (f"{ratio.mean().item():.3g}× 3x²", f"3x² 的 {ratio.mean().item():.3g} 倍")
        else:
            worst = (grad - expected).abs().max().item()
            found = (f"off by up to {worst:.3g}", f"最多差 {worst:.3g}")
    if grad.shape != x.shape or not torch.allclose(grad, expected, rtol=1e-10, atol=1e-12):
        raise Fail(
            "x.grad after cube(x).sum().backward() is not 3x²",
            "cube(x).sum().backward() 之后 x.grad 不是 3x²",
            expected=("3 * x ** 2", "3 * x ** 2"),
            found=found,
            hint_en=BACKWARD32_EN
            if float32_only
            else "d(x³)/dx = 3x², computed from the x that forward saved (ctx.saved_tensors), not from the output",
            hint_zh=BACKWARD32_ZH
            if float32_only
            else "d(x³)/dx = 3x²，用 forward 保存的 x（ctx.saved_tensors）来算，不是用输出",
        )

    check(f"{case_en}: gradcheck(cube, (x,)) passes in float64", f"{case_zh}：gradcheck(cube, (x,)) 在 float64 下通过")
    x = draw(*shape, seed=seed)
    try:
        gradcheck(solution.cube, (x,))
    except NotImplementedError:
        raise
    except GradcheckError as error:
        explain_mismatch(solution, x, str(error).splitlines()[0].rstrip(","))
    except RuntimeError as error:
        raise Fail(
            "gradcheck could not run your Function",
            "gradcheck 没法运行你的 Function",
            expected=("gradcheck returns True", "gradcheck 返回 True"),
            found=f"{type(error).__name__}: {str(error).splitlines()[0][:200]}",
            hint_en="read the error: gradcheck calls cube and your backward many times, with one-hot "
            "and all-zero grad_outputs",
            hint_zh="读一读报错：gradcheck 会多次调用 cube 和你的 backward，grad_output 有独热的，也有全是 0 的",
        ) from None

    # --- the method: ctx.save_for_backward, and a derivative written by hand ---
    check(
        f"{case_en}: forward keeps x with ctx.save_for_backward and backward reads it from ctx.saved_tensors: an "
        "in-place edit of x between forward and backward makes backward raise",
        f"{case_zh}：forward 用 ctx.save_for_backward 保存 x，backward 从 ctx.saved_tensors 取回：在 forward 和 "
        "backward 之间原地修改 x，backward 会报错",
    )
    refuse_ctx_attributes(
        solution.cube(draw(*shape, seed=seed)),
        "ctx.save_for_backward(x)",
        (
            "ctx.save_for_backward(x) in forward and ctx.saved_tensors in backward: autograd then "
            "checks that x was not modified in place, and frees it after backward",
            "在 forward 里用 ctx.save_for_backward(x)，在 backward 里取 ctx.saved_tensors："
            "这样 autograd 会检查 x 有没有被原地修改，反向传播结束后也会释放它",
        ),
    )
    x = draw(*shape, seed=seed)
    out = solution.cube(x)
    with torch.no_grad():
        x.mul_(1)  # the same values, one version more
    try:
        torch.autograd.grad(out.sum(), x)
    except RuntimeError as error:
        if "modified by an inplace operation" not in str(error):
            raise
    else:
        raise Fail(
            "backward did not notice an in-place edit of x: it did not read x from ctx.saved_tensors",
            "backward 没有发现 x 被原地修改过：它不是从 ctx.saved_tensors 取的 x",
            expected=(
                'x.mul_(1) between forward and backward, then backward raises "modified by an inplace operation"',
                "在 forward 和 backward 之间做 x.mul_(1)，backward 随后报 “modified by an inplace operation”",
            ),
            found=("backward ran without an error", "backward 照常运行，没有报错"),
            hint_en="ctx.save_for_backward(x) in forward, and (x,) = ctx.saved_tensors in backward; a copy "
            "(x.clone(), x.tolist()) or x kept anywhere else on ctx escapes the version check",
            hint_zh="在 forward 里 ctx.save_for_backward(x)，在 backward 里 (x,) = ctx.saved_tensors；"
            "存副本（x.clone()、x.tolist()），或者把 x 放在 ctx 的别处，都会躲过版本检查",
        )

    check(
        f"{case_en}: backward computes the gradient from the x it reads from ctx.saved_tensors: when that hands "
        "back 2x, backward returns grad_output · 3(2x)²",
        f"{case_zh}：backward 用从 ctx.saved_tensors 取回的 x 计算梯度：取回的是 2x 时，backward 返回 "
        "grad_output · 3(2x)²",
    )
    x = draw(*shape, seed=seed)
    with torch.autograd.graph.saved_tensors_hooks(lambda tensor: tensor, lambda tensor: 2 * tensor):
        out = solution.cube(x)  # every tensor forward saves comes back doubled
    torch.manual_seed(seed)
    grad_output = torch.randn(*shape, dtype=torch.float64)
    grad = run_backward(out, x, grad_output)
    expected = grad_output * 3 * (2 * x.detach()) ** 2
    if grad.shape != x.shape or not torch.allclose(grad, expected, rtol=1e-10, atol=1e-12):
        unchanged = grad.shape == x.shape and torch.allclose(
            grad, grad_output * 3 * x.detach() ** 2, rtol=1e-10, atol=1e-12
        )
        raise Fail(
            "Cube.backward did not compute the gradient from the x it read back from ctx.saved_tensors",
            "Cube.backward 没有用从 ctx.saved_tensors 取回的 x 计算梯度",
            expected=(
                "grad_output · 3(2x)², from the 2x that ctx.saved_tensors handed back",
                "grad_output · 3(2x)²，用 ctx.saved_tensors 取回的 2x 算出",
            ),
            found=(
                "grad_output · 3x²: backward ignored what ctx.saved_tensors handed back",
                "grad_output · 3x²：backward 没用 ctx.saved_tensors 取回的东西",
            )
            if unchanged
            else (
                f"off by up to {(grad - expected).abs().max().item():.3g}",
                f"最多差 {(grad - expected).abs().max().item():.3g}",
            ),
            hint_en="(x,) = ctx.saved_tensors, then grad_output * 3 * x ** 2: from that x, not from the "
            "output of forward and not from a copy of x kept anywhere else",
            hint_zh="(x,) = ctx.saved_tensors，再算 grad_output * 3 * x ** 2：用这个 x，不要用 forward 的输出，"
            "也不要用存在别处的 x 副本",
        )

    check(
        f"{case_en}: Cube.backward computes 3x² itself, with torch calls, in every call (from .sum(), from "
        "gradcheck, and called directly), without asking autograd for the derivative (reverse or forward mode), "
        "without replaying ops that autograd traced (torch.ops operator overloads, or aten ops that no torch call "
        "accounts for, as TorchScript runs them), without handing values out of torch (tolist, numpy, item, "
        "float(), print; it runs once more on meta tensors, which have no values, and makes the same torch calls "
        "there as on the CPU), without starting another thread and without complex-step differentiation",
        f"{case_zh}：Cube.backward 每次被调用（.sum() 时、gradcheck 里、直接调用时）都用 torch 调用自己算出 3x²，"
        "不让 autograd 替它求导（反向模式、前向模式都不行），不重放 autograd 追踪下来的算子（torch.ops 里的算子重载，"
        "或者像 TorchScript 那样执行、没有任何 torch 调用对应的 aten 算子），不把值交出 torch（tolist、numpy、item、"
        "float()、print；它还要在没有值的 meta 张量上再跑一遍，做和 CPU 上相同的 torch 调用），不启动别的线程，"
        "也不用复步长法数值求导",
    )
    torch.manual_seed(seed)
    grad_output = torch.randn(*shape, dtype=torch.float64)
    out = solution.cube(draw(*shape, seed=seed))  # held while its node runs: torch 2.6 frees what it saved otherwise
    with torch.no_grad():
        out.grad_fn.apply(grad_output)  # outside the engine, as the earlier checks ran it inside
    on_cpu = watched.last_calls
    # Once more on meta tensors, which have a shape and a dtype but no values: any way of taking values out of torch
    # (tolist, numpy, item, bool, dlpack, a print of the values), named in OUT_OF_TORCH or not, raises there. So that
    # backward cannot tell this run apart and compute otherwise here, it must make the torch calls it makes on the
    # CPU for the same shape (in the call just above), and catch no error.
    x = torch.empty(shape, dtype=torch.float64, device="meta", requires_grad=True)
    watched.on_meta = True
    try:
        (grad,) = torch.autograd.grad(solution.cube(x), x, torch.empty(shape, dtype=torch.float64, device="meta"))
        watched.meta_error = (
            None
            if grad.device.type == "meta" and grad.shape == x.shape
            else f"a gradient of shape {tuple(grad.shape)} on {grad.device}"
        )
        if watched.last_calls != on_cpu:
            watched.meta_differs = (on_cpu, watched.last_calls)
    except Exception as error:  # noqa: BLE001 -- whatever the reader's backward raised is what the Fail shows
        watched.meta_error = said(error)
    finally:
        watched.on_meta = False
    refuse_autograd_in_backward(watched)


def explain_mismatch(solution, x, raised):
    """The Fail for a GradcheckError: the Jacobian built from the reader's backward, in words."""
    analytical = jacobian_from_backward(solution.cube, x)
    true = torch.diag(3 * x.detach().reshape(-1) ** 2)
    if bool((analytical == analytical[:, :1]).all()):
        shape_en, shape_zh = (
            (
                "every column is the same vector 3x²: your backward ignores grad_output and returns "
                "the same gradient for every output element",
                "每一列都是同一个向量 3x²：你的 backward 不看 grad_output，对每个输出元素都返回同样的梯度",
            )
            if torch.allclose(analytical[:, 0], true.diagonal())
            else (
                "every column is the same vector: your backward does not multiply by grad_output element by element",
                "每一列都是同一个向量：你的 backward 没有逐元素地乘上 grad_output",
            )
        )
        hint_en = (
            "multiply by grad_output: return grad_output * 3 * x ** 2. With .sum(), grad_output is all "
            "ones, which is why the check above passed; gradcheck calls backward with a one-hot "
            "grad_output for each output element (twice each, and compares the two results), and sees "
            "the difference"
        )
        hint_zh = (
            "要乘上 grad_output：返回 grad_output * 3 * x ** 2。用 .sum() 时 grad_output 全是 1，所以上面那项"
            "检查能通过；gradcheck 对每个输出元素都用独热的 grad_output 调用 backward"
            "（每个调两次，比较两次的结果），差别就露出来了"
        )
    else:
        worst = (analytical - true).abs().max().item()
        shape_en = f"a Jacobian that differs from the true one, diag(3x²), by up to {worst:.3g}"
        shape_zh = f"雅可比矩阵和真正的 diag(3x²) 最多差 {worst:.3g}"
        hint_en = (
            "x³ is elementwise, so the Jacobian is diagonal: backward must return grad_output * 3x², "
            "computed in float64 from the saved x"
        )
        hint_zh = "x³ 是逐元素的，雅可比矩阵是对角的：backward 要返回 grad_output * 3x²，用保存的 x 在 float64 下算"
    raise Fail(
        f'gradcheck raised GradcheckError ("{raised}"): the Jacobian built from your backward does not '
        "match the one measured by finite differences",
        f"gradcheck 抛出了 GradcheckError（“{raised}”）：用你的 backward 得到的雅可比矩阵，和有限差分测出来的不一致",
        expected=(
            "3x² on the diagonal and zeros elsewhere (x³ is elementwise), as the finite differences measure",
            "对角线上是 3x²、其余为 0（x³ 是逐元素的），和有限差分测出来的一样",
        ),
        found=(shape_en, shape_zh),
        hint_en=hint_en,
        hint_zh=hint_zh,
    )
