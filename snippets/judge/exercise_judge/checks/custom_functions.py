"""Exercises of the chapter custom-functions."""

import torch
from torch.autograd import gradcheck
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from torch.autograd.gradcheck import GradcheckError

from exercise_judge.checking import Fail, exercise
from exercise_judge.checks._shared import refuse_ctx_attributes, refuse_passes, require_function_class
from exercise_judge.spies import TorchCalls, autograd_passes, counted

# Every case gets every check, the method's included: (shape of x, seed, beta).
CASES = (((5,), 0, 1.5), ((2, 3), 1, -0.7))
# Ops that only forward-mode AD calls (torch.autograd.forward_ad, and torch.func.jvp, jacfwd on it).
FORWARD_MODE = ("_make_dual", "_unpack_dual")
# Calls that make a complex tensor from real ones: the complex-step method starts with one of them.
COMPLEX = ("complex", "view_as_complex", "polar")
# Tensor methods that leave torch for NumPy or Python numbers.
LEAVE_TORCH = ("numpy", "__array__", "tolist", "item")


def storage(tensor):
    try:
        return tensor.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):
        return id(tensor)


def makes_new(name: str) -> bool:
    """A call that makes a tensor from another's shape, dtype or device, not from its values."""
    return name.startswith("new_") or name.endswith("_like") or name in ("size", "numel", "dim")


class TorchResults(TorchCalls):
    """TorchCalls that also keeps, detached, every tensor the recorded calls return, with the number of
    elements of the largest tensor each call was given (a result with fewer is a reduction); and which
    memory each call's results were computed from, so that the work that feeds no returned tensor shows."""

    def __init__(self):
        super().__init__()
        self.results: list[tuple[str, torch.Tensor, int]] = []
        self.inside = 0  # > 0 while a recorded call runs (the mode is off the stack then)
        self.made: list[tuple[str, torch.Tensor]] = []  # (name, the result itself, held: its memory stays its own)
        self.sources: dict[int, set[int]] = {}  # memory of a result -> the memory of what made it was given
        self.quiet = False  # the AtenResults beside it skips the judge's own look at a factor

    def times_zero(self, name, args, kwargs):
        """A product with a factor that is all zeros: its result does not depend on the other factor."""
        if name not in ("mul", "__mul__", "__rmul__", "multiply", "mul_", "__imul__"):
            return False
        self.quiet = True
        try:
            return any(
                not bool(value.any()) if isinstance(value, torch.Tensor) else value == 0
                for value in tree_leaves((args, kwargs or {}))
                if isinstance(value, (torch.Tensor, int, float))
            )
        finally:
            self.quiet = False

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.inside += 1
        try:
            return self.record(func, types, args, kwargs)
        finally:
            self.inside -= 1

    def record(self, func, types, args, kwargs):
        name = getattr(func, "__name__", "")
        given = [value for value in tree_leaves((args, kwargs or {})) if isinstance(value, torch.Tensor)]
        result = super().__torch_function__(func, types, args, kwargs)
        widest = max((value.numel() for value in given), default=0)
        memory = {storage(value) for value in given}
        # reading a shape or a dtype does not use the values
        read = set() if makes_new(name) or name == "__get__" or self.times_zero(name, args, kwargs) else memory
        for value in tree_leaves(result):
            if isinstance(value, torch.Tensor):
                self.results.append((name, value.detach(), widest))
                # by memory, not object: an in-place write into a view feeds its base
                self.sources.setdefault(storage(value), set()).update(read - {storage(value)})
                if storage(value) not in memory:  # a view or an alias of what it was given is no new work
                    self.made.append((name, value))
        return result

    def unread(self, returned):
        """The names of the calls whose new result (not a view) feeds no returned tensor, directly or
        through later calls: work thrown away (a call that only compares it, or returns a Python value
        from it, does not count)."""
        feeding, todo = set(), [storage(value) for value in returned if isinstance(value, torch.Tensor)]
        while todo:
            memory = todo.pop()
            if memory not in feeding:
                feeding.add(memory)
                todo.extend(self.sources.get(memory, ()))
        return [name for name, value in self.made if storage(value) not in feeding]


# Running sums and products: the last element of each is a reduction of all the elements before it.
CUMULATIVE = ("cumsum", "cumsum_", "cumprod", "cumprod_", "logcumsumexp", "cummax", "cummin")
# The most elements a result of backward may have, in units of x.numel(): affine_image searches no more.
LARGEST = 64

CONTRACTIONS = ("mm", "bmm", "addmm", "addbmm", "baddbmm", "dot", "vdot", "mv", "addmv")
# Operations that are neither tagged pointwise nor views but only make, fill, copy or cast a tensor, or
# compute elementwise: with views and pointwise operations, all that grad_x needs.
ELEMENTWISE = (
    "fill_",
    "zero_",
    "copy_",
    "_to_copy",
    "lift_fresh_copy",
    "scalar_tensor",
    "_unsafe_view",
    "empty",
    "empty_like",
    "empty_strided",
    "zeros",
    "zeros_like",
    "ones",
    "ones_like",
    "full",
    "full_like",
    "new_empty",
    "new_empty_strided",
    "new_zeros",
    "new_ones",
    "new_full",
    "where",
    "masked_fill",
    "log_sigmoid_forward",
    "log_sigmoid_backward",
    "softplus_backward",
    "mish_backward",
)
# The transcendental functions a swish backward evaluates, with the argument that is the point of
# evaluation: an analytic backward evaluates them at ±βx (or ±βx/2, for tanh), a finite difference
# also at shifted points. pow counts with a tensor exponent, the point (e ** z is exp at z).
TRANSCENDENTAL = {
    "sigmoid": 0,
    "exp": 0,
    "exp2": 0,
    "expm1": 0,
    "tanh": 0,
    "sinh": 0,
    "cosh": 0,
    "softplus": 0,
    "log_sigmoid_forward": 0,
    "silu": 0,
    "mish": 0,
    "elu": 0,
    "celu": 0,
    "selu": 0,
    "logaddexp": 0,
    "silu_backward": 1,
    "softplus_backward": 1,
    "log_sigmoid_backward": 1,
    "mish_backward": 1,
    "pow": 1,
}


class AtenResults(TorchDispatchMode):
    """Records, below the Python layer, every aten operation, what it returned (detached) and whether it
    was a view; and which operations ran while the TorchResults beside it was switched off
    (torch._C.DisableTorchFunction, a popped mode stack), which a backward does only to hide from it."""

    def __init__(self, above: TorchResults):
        super().__init__()
        self.above = above
        self.results: list[tuple[str, torch.Tensor, bool]] = []
        self.unseen: list[str] = []
        self.contracted: list[tuple[str, int]] = []  # (mm, bmm, dot, ...: the length of each sum it makes)
        self.points: list[tuple[str, torch.Tensor]] = []  # (a TRANSCENDENTAL, where it was evaluated)
        self.other: list[str] = []  # operations neither pointwise, nor views, nor in ELEMENTWISE

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if self.above.quiet:
            return func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        if name in CONTRACTIONS:  # the last operand is (..., k, p) or (k,): each result element sums k products
            last = [value for value in args if isinstance(value, torch.Tensor)][-1]
            self.contracted.append((name, last.shape[0] if last.dim() == 1 else last.shape[-2]))
        base = name.removeprefix("_foreach_").rstrip("_")
        if base in TRANSCENDENTAL and len(args) > TRANSCENDENTAL[base]:
            for value in tree_leaves(args[TRANSCENDENTAL[base]]):
                if isinstance(value, torch.Tensor):
                    self.points.append((name, value.detach().clone()))
        if base == "logaddexp":  # log(e^a + e^b): exp at both
            self.points += [(name, value.detach().clone()) for value in args[1:2] if isinstance(value, torch.Tensor)]
        watched = self.above.inside > 0 or (
            torch._C._is_torch_function_mode_enabled()
            and any(mode is self.above for mode in torch.overrides._get_current_function_mode_stack())
        )
        if not watched:
            self.unseen.append(name)
        result = func(*args, **(kwargs or {}))
        for value in result if isinstance(result, (tuple, list)) else (result,):
            if isinstance(value, torch.Tensor):
                self.results.append((name, value.detach(), bool(func.is_view)))
        if any(isinstance(value, torch.Tensor) for value in tree_leaves(result)) and not (
            torch.Tag.pointwise in func.tags or func.is_view or name in ELEMENTWISE
        ):
            self.other.append(name)
        return result


class LeftTorch:
    """Records the Tensor methods that hand values to NumPy or Python (LEAVE_TORCH), however the torch
    function layer is set: they are wrapped on torch.Tensor itself while the block runs."""

    def __init__(self):
        self.names: list[str] = []
        self.saved = {}

    def __enter__(self):
        for name in LEAVE_TORCH:
            original = getattr(torch.Tensor, name)
            self.saved[name] = torch.Tensor.__dict__.get(name)

            def wrapper(tensor, *args, _original=original, _name=name, **kwargs):
                self.names.append(_name)
                return _original(tensor, *args, **kwargs)

            setattr(torch.Tensor, name, wrapper)
        return self

    def __exit__(self, *exc):
        for name, original in self.saved.items():
            if original is None:
                delattr(torch.Tensor, name)
            else:
                setattr(torch.Tensor, name, original)
        return False


class StartsThreads:
    """Records every thread started while the block runs (threading.Thread.start and the _thread
    functions under it are wrapped): the judge's modes see only the thread that calls backward, so work
    done in another thread would go unchecked."""

    NAMES = ("start_new_thread", "start_new", "start_joinable_thread")

    def __init__(self):
        self.names: list[str] = []
        self.saved = []

    def __enter__(self):
        import _thread
        import threading

        def wrap(owner, name):
            original = getattr(owner, name)

            def wrapper(*args, **kwargs):
                self.names.append(f"{owner.__name__}.{name}")
                return original(*args, **kwargs)

            self.saved.append((owner, name, original))
            setattr(owner, name, wrapper)

        wrap(threading.Thread, "start")
        for name in self.NAMES:
            if hasattr(_thread, name):
                wrap(_thread, name)
        return self

    def __exit__(self, *exc):
        for owner, name, original in reversed(self.saved):
            setattr(owner, name, original)
        return False


def affine_image(value, true):
    """Whether n = true.numel() of value's elements are a * true + b elementwise for some a != 0 and b (true with
    at least 3 distinct values, compared in float64 to a relative 1e-9, or to 100 roundings of value's own dtype if
    coarser; among more elements, to 1e-5 at most), in any order: the gradient itself, shifted, scaled or computed
    in a lower precision, alone or among other elements (padded, packed with other terms), so that no tensor
    equals it. Each pair of value's distinct elements fixes a and b, so a larger value costs its size squared:
    the judge refuses a result of more than LARGEST × x.numel() elements before it looks."""
    if value.numel() < true.numel() or value.is_complex() or not value.is_floating_point():
        return False
    tolerance = max(1e-9, 100 * torch.finfo(value.dtype).eps)
    if value.numel() > true.numel():  # among more elements, 1e-5 at most: float16 would match anything
        tolerance = min(tolerance, 1e-5)
    flat, want = value.reshape(-1).to(torch.float64), true.reshape(-1).to(torch.float64).unique()
    if want.numel() < 3:
        return False
    found = flat[torch.isfinite(flat)].unique()  # sorted
    for ordered in (want, want.flip(0)):
        offsets = ordered - ordered[0]
        first, last = torch.triu_indices(found.numel(), found.numel(), 1)  # the images of ordered[0], ordered[-1]
        a = (found[last] - found[first]) / offsets[-1]
        images = found[first, None] + a[:, None] * offsets  # (pairs, n)
        scale = images.abs().amax(dim=1).clamp_min(1e-300)
        where = torch.searchsorted(found, images).clamp(1, found.numel() - 1)
        gap = torch.minimum((found[where] - images).abs(), (found[where - 1] - images).abs()).amax(dim=1)
        apart = a.abs() * offsets.diff().abs().min()  # distinct images, each matched by its own element
        if bool(((apart > 2 * gap) & (apart > 1e-6 * scale) & (gap <= tolerance * scale)).any()):
            return True
    return False


def produced(seen) -> int:
    """The elements made by the aten operations that are not views: the work a backward did."""
    return sum(value.numel() for _, value, view in seen.aten.results if not view)


def draw(shape, seed, beta, x_grad=True, beta_grad=True):
    torch.manual_seed(seed)
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=x_grad)
    return x, torch.tensor(beta, dtype=torch.float64, requires_grad=beta_grad)


def expected_grads(x, beta):
    """The true gradients of swish(x, beta).sum(), from plain autograd on fresh leaves."""
    x, beta = x.detach().requires_grad_(), beta.detach().requires_grad_()
    return torch.autograd.grad((x * torch.sigmoid(beta * x)).sum(), (x, beta))


def grads_through(solution, x, beta):
    """The gradients of swish(x, beta).sum() through the reader's backward, or a Fail that explains
    why autograd refused what backward returned."""
    out = solution.swish(x, beta)
    try:
        return torch.autograd.grad(out.sum(), (x, beta), allow_unused=True)
    except NotImplementedError:
        raise  # the starter's backward: the judge shows the reader's line
    except RuntimeError as error:
        message = str(error).splitlines()[0]
        raise Fail(
            "autograd rejected what Swish.backward returned",
            "autograd 不接受 Swish.backward 的返回值",
            expected=(
                "two gradients, for x and beta, each shaped like its input",
                "两个梯度，分别对应 x 和 beta，形状和各自的输入相同",
            ),
            found=f"RuntimeError: {message[:200]}",
            hint_en="backward returns one gradient per input of forward, in order: (grad_x, grad_beta)",
            hint_zh="backward 按顺序为 forward 的每个输入返回一个梯度：(grad_x, grad_beta)",
        ) from None


def call_backward(solution, x, beta):
    """Swish's node called directly with a grad_output of ones, as autograd would call it: what the
    reader's backward itself returns, before autograd drops or sums anything; the backward passes it
    asked for; and, from a second call, the torch calls it made, with what each returned (apart: under
    the counting mode the spies would see each pass twice)."""
    out = solution.swish(x, beta)  # held while its node runs: torch 2.6 frees what it saved otherwise
    node, grad_output = out.grad_fn, torch.ones_like(out)
    with autograd_passes() as passes, StartsThreads() as threads:
        returned = node.apply(grad_output)
    out = solution.swish(x, beta)
    node, grad_output = out.grad_fn, torch.ones_like(out)
    with (
        TorchResults() as seen,
        AtenResults(seen) as seen.aten,
        LeftTorch() as seen.left,
        StartsThreads() as seen.threads,
    ):
        seen.returned = node.apply(grad_output)
    seen.threads.names[:0] = threads.names
    seen.inputs = x.detach(), beta.detach()
    return (returned if isinstance(returned, tuple) else (returned,)), passes, seen


# The derivatives by hand, for a backward that had something else compute them.
BY_HAND = (
    "with s = sigmoid(beta * x): grad_x = g * (s + beta * x * s * (1 - s)), "
    "grad_beta = (g * x * x * s * (1 - s)).sum()",
    "记 s = sigmoid(beta * x)：grad_x = g * (s + beta * x * s * (1 - s))，grad_beta = (g * x * x * s * (1 - s)).sum()",
)


def evaluated_elsewhere(seen):
    """The first transcendental function (TRANSCENDENTAL) that backward evaluated at a point other than
    ±βx, ±βx/2, ±log σ(±βx) or 0, with the farthest such point and its distance to the nearest of those:
    a finite difference evaluates f at x ± h or β ± h. A point counts as one of those within 100 roundings
    of its dtype, and within 1e-9 at least, relative to max(1, |βx|): a step below that makes a finite
    difference's rounding error larger than the gradient's tolerance."""
    x, beta = (value.to(torch.float64) for value in seen.inputs)
    z = (beta * x).reshape(-1)
    logs = torch.nn.functional.logsigmoid(torch.cat((z, -z)))  # exp(log σ(z)) = σ(z): a stable sigmoid
    allowed = torch.cat((z, -z, z / 2, -z / 2, logs, -logs, z.new_zeros(1))).unique()  # sorted
    scale = max(1.0, z.abs().max().item()) if z.numel() else 1.0
    for name, point in seen.aten.points:
        if not point.is_floating_point() or point.numel() == 0:
            continue
        tolerance = max(1e-9, 100 * torch.finfo(point.dtype).eps) * scale
        flat = point.reshape(-1).to(torch.float64)
        where = (
            torch.searchsorted(allowed, flat).clamp(1, allowed.numel() - 1)
            if allowed.numel() > 1
            else torch.zeros_like(flat, dtype=torch.long)
        )
        gap = torch.minimum((allowed[where] - flat).abs(), (allowed[where - 1] - flat).abs())
        gap = torch.where(torch.isnan(gap), torch.full_like(gap, float("inf")), gap)
        if bool((gap > tolerance).any()):
            worst = int(gap.argmax())
            return name, flat[worst].item(), gap[worst].item()
    return None


def refuse_autograd_in_backward(passes, seen):
    asked_en, asked_zh = counted(passes)
    expected = (
        "grad_output times the derivatives, written out with torch operations",
        "用 torch 运算亲手写出的导数，再乘以 grad_output",
    )
    hint = BY_HAND
    refuse_passes(
        passes,
        (
            f"Swish.backward asked autograd for the derivative ({asked_en}): the exercise is to write it by hand",
            f"Swish.backward 让 autograd 替它求导（{asked_zh}）：这道练习要你亲手写出导数",
        ),
        expected,
        hint,
    )
    if seen.threads.names:
        raise Fail(
            "Swish.backward started a thread: the judge watches only the thread that calls backward, so it "
            "cannot see how the work done in another one computes, and cannot pass it",
            "Swish.backward 启动了线程：判题程序只盯着调用 backward 的那个线程，别的线程里怎么算它看不到，所以不能通过",
            expected=expected,
            found=tuple(
                separator.join(f"{name}()" for name in dict.fromkeys(seen.threads.names)) for separator in (", ", "、")
            ),
            hint_en=hint[0] + ", in backward itself",
            hint_zh=hint[1] + "，就在 backward 里算",
        )
    if seen.aten.unseen:
        unseen = sorted(set(seen.aten.unseen))
        raise Fail(
            "Swish.backward switched off torch's function layer (torch._C.DisableTorchFunction or a popped "
            "mode stack) around part of its work: the judge cannot see how that part computes, so it cannot "
            "pass",
            "Swish.backward 在部分计算外面关掉了 torch 的函数层（torch._C.DisableTorchFunction，或弹出"
            "模式栈）：这部分怎么算的判题程序看不到，所以不能通过",
            expected=expected,
            found=(f"aten operations run unseen: {', '.join(unseen)}", f"没被看到的 aten 运算：{'、'.join(unseen)}"),
            hint_en=hint[0],
            hint_zh=hint[1],
        )
    complex_calls = [
        call.name
        for call in seen.calls
        if call.name in COMPLEX or (call.tensor is not None and call.tensor.is_complex())
    ]
    complex_calls += [name for name, value, _ in seen.results if value.is_complex() and name not in complex_calls]
    if not complex_calls:  # the Python layer saw none: name the aten operations that made them
        complex_calls = [f"aten.{name}" for name, value, _ in seen.aten.results if value.is_complex()]
    complex_calls = sorted({name for name in complex_calls if not name.startswith("__")} or set(complex_calls))
    if complex_calls:
        raise Fail(
            "Swish.backward computed with complex numbers (the complex-step method): that is a numerical "
            "derivative, and the exercise is to write the derivative by hand",
            "Swish.backward 用复数来算（复步长法）：那是数值求导，这道练习要你亲手写出导数",
            expected=expected,
            found=", ".join(complex_calls),
            hint_en=hint[0],
            hint_zh=hint[1],
        )
    left = sorted({call.name for call in seen.calls if call.name in LEAVE_TORCH} | set(seen.left.names))
    if left:
        raise Fail(
            "Swish.backward left torch for NumPy or Python numbers: the exercise asks for torch operations "
            "on the saved tensors",
            "Swish.backward 离开了 torch，改用 NumPy 或 Python 数来算：这道练习要的是对保存的张量做 torch 运算",
            expected=expected,
            found=", ".join(f".{name}()" for name in left),
            hint_en=hint[0] + "; torch.func.grad, save_on_cpu and a GPU all need the tensors to stay tensors",
            hint_zh=hint[1] + "；torch.func.grad、save_on_cpu 和 GPU 都要求张量始终是张量",
        )
    forward_mode = [call.name for call in seen.calls if call.name in FORWARD_MODE]
    forward_mode += [name for name, _, _ in seen.aten.results if name in FORWARD_MODE and name not in forward_mode]
    if forward_mode:
        raise Fail(
            "Swish.backward asked autograd for the derivative in forward mode (dual numbers: "
            "torch.autograd.forward_ad, or torch.func.jvp, jacfwd): the exercise is to write it by hand",
            "Swish.backward 让 autograd 用前向模式替它求导（对偶数：torch.autograd.forward_ad，或 "
            "torch.func.jvp、jacfwd）：这道练习要你亲手写出导数",
            expected=expected,
            found=tuple(
                separator.join(f"{forward_mode.count(name)} × {name}" for name in FORWARD_MODE if name in forward_mode)
                for separator in (", ", "、")
            ),
            hint_en=hint[0],
            hint_zh=hint[1],
        )


def refuse_finite_differences(seen):
    shifted = evaluated_elsewhere(seen)
    if shifted is not None:
        name, point, gap = shifted
        raise Fail(
            "Swish.backward evaluated a transcendental function away from beta·x (finite differences): "
            "that is a numerical derivative, and the exercise is to write the derivative by hand",
            "Swish.backward 在 beta·x 以外的点上求了超越函数的值（有限差分）：那是数值求导，这道练习要你亲手写出导数",
            expected=(
                "sigmoid, exp, tanh and the like evaluated only at ±βx (or ±βx/2)",
                "sigmoid、exp、tanh 这类函数只在 ±βx（或 ±βx/2）处求值",
            ),
            found=(
                f"aten.{name} at {point:.6g}, {gap:.3g} from the nearest ±βx",
                f"aten.{name} 在 {point:.6g} 处求值，离最近的 ±βx 差 {gap:.3g}",
            ),
            hint_en=BY_HAND[0],
            hint_zh=BY_HAND[1],
        )


def read_back_doubled(solution, x, beta, doubled=("x", "beta")):
    """The gradients of swish(x, beta).sum() through Swish.backward when ctx.saved_tensors gives back
    2x and 2beta (a saved-tensor unpack hook doubles what save_for_backward kept of x and beta
    themselves, or only of those named in doubled), and how many other tensors it saved (the output,
    say, which the hook leaves alone); the shapes of what backward returns are checked apart."""
    targets = [value for name, value in (("x", x), ("beta", beta)) if name in doubled]
    others = []

    def pack(tensor):
        double = any(tensor is value for value in targets)
        if not double and not any(tensor is value for value in (x, beta)):
            others.append(tensor)
        return tensor, double

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed[0] * 2 if packed[1] else packed[0]):
        out = solution.swish(x, beta)
    return torch.autograd.grad(out.sum(), (x, beta), allow_unused=True), len(others)


def described(returned) -> list:
    return [
        None
        if value is None
        else f"tensor{tuple(value.shape)}"
        if isinstance(value, torch.Tensor)
        else type(value).__name__
        for value in returned
    ]


@exercise(
    "custom-functions/swish",
    en="swish(x, beta) = x·sigmoid(beta·x) as a custom Function: setup_context, save_for_backward, "
    "a backward by hand, needs_input_grad",
    zh="把 swish(x, beta) = x·sigmoid(beta·x) 写成自定义 Function：setup_context、save_for_backward、"
    "亲手写的 backward、needs_input_grad",
)
def swish(solution, check):
    check(
        "Swish is a torch.autograd.Function in the setup_context style",
        "Swish 是一个 torch.autograd.Function，用的是 setup_context 写法",
    )
    require_function_class(
        solution,
        "Swish",
        ("keep the class of the starter file and fill in its static methods", "保留起始文件里的类，填好它的静态方法"),
    )
    if solution.Swish.setup_context is torch.autograd.Function.setup_context:
        raise Fail(
            "Swish has no setup_context: its forward takes ctx, the older style",
            "Swish 没有 setup_context：它的 forward 接收 ctx，是老写法",
            expected=(
                "forward(x, beta) that only computes, and setup_context(ctx, inputs, output) that saves",
                "只管计算的 forward(x, beta)，加上负责保存的 setup_context(ctx, inputs, output)",
            ),
            found=("no setup_context in Swish", "Swish 里没有 setup_context"),
            hint_en="move ctx.save_for_backward out of forward into setup_context(ctx, inputs, output): "
            "torch.func transforms (vmap, grad, jacrev) refuse a Function whose forward takes ctx",
            hint_zh="把 ctx.save_for_backward 从 forward 挪进 setup_context(ctx, inputs, output)："
            "forward 带 ctx 的 Function，torch.func 的变换（vmap、grad、jacrev）一律拒绝",
        )

    for shape, seed, beta_value in CASES:
        case_en = f"x of shape {shape}, beta = {beta_value}"
        case_zh = f"x 的形状为 {shape}，beta = {beta_value}"

        check(
            f"{case_en}: swish(x, beta) equals x·sigmoid(beta·x), in float64, and goes through Swish",
            f"{case_zh}：swish(x, beta) 等于 x·sigmoid(beta·x)，是 float64，并且经过 Swish",
        )
        x, beta = draw(shape, seed, beta_value)
        out = solution.swish(x, beta)
        want = (x * torch.sigmoid(beta * x)).detach()
        if not isinstance(out, torch.Tensor) or out.shape != x.shape or out.dtype != torch.float64:
            raise Fail(
                "swish(x, beta) did not return a float64 tensor shaped like x",
                "swish(x, beta) 返回的不是和 x 同形状的 float64 张量",
                expected=(f"float64, shape {tuple(x.shape)}", f"float64，形状 {tuple(x.shape)}"),
                found=(f"{out.dtype}, shape {tuple(out.shape)}", f"{out.dtype}，形状 {tuple(out.shape)}")
                if isinstance(out, torch.Tensor)
                else f"{type(out).__name__}: {out!r}"[:80],
                hint_en="return Swish.apply(x, beta), and don't cast inside the Function",
                hint_zh="返回 Swish.apply(x, beta)，也不要在 Function 里转换类型",
            )
        difference = (out.detach() - want).abs().max().item()
        if difference > 1e-12:
            raise Fail(
                "swish(x, beta) is not x·sigmoid(beta·x)",
                "swish(x, beta) 不等于 x·sigmoid(beta·x)",
                expected=("x * torch.sigmoid(beta * x)", "x * torch.sigmoid(beta * x)"),
                found=(f"off by up to {difference:.3g}", f"最多差 {difference:.3g}"),
                hint_en="forward returns x * torch.sigmoid(beta * x)",
                hint_zh="forward 返回 x * torch.sigmoid(beta * x)",
            )
        node = type(out.grad_fn).__name__ if out.grad_fn is not None else "None"
        if node != f"{solution.Swish.__name__}Backward":
            raise Fail(
                f"swish(x, beta) did not go through Swish: its grad_fn is {node}",
                f"swish(x, beta) 没有经过 Swish：它的 grad_fn 是 {node}",
                expected=f"grad_fn {solution.Swish.__name__}Backward",
                found=f"grad_fn {node}",
                hint_en="call the Function with Swish.apply(x, beta)",
                hint_zh="用 Swish.apply(x, beta) 调用这个 Function",
            )

        check(
            f"{case_en}: the gradients of swish(x, beta).sum() for x and beta are right",
            f"{case_zh}：swish(x, beta).sum() 对 x 和 beta 的梯度都对",
        )
        grad_x, grad_beta = grads_through(solution, x, beta)
        true_x, true_beta = expected_grads(x, beta)
        for name, found, true in (("x", grad_x, true_x), ("beta", grad_beta, true_beta)):
            if found is not None and found.shape == true.shape and torch.allclose(found, true, rtol=1e-10, atol=1e-12):
                continue
            if found is None:
                worst = "None"
            elif found.shape != true.shape:
                worst = (f"shape {tuple(found.shape)}", f"形状 {tuple(found.shape)}")
            else:
                off = (found - true).abs().max().item()
                worst = (f"off by up to {off:.3g}", f"最多差 {off:.3g}")
            if name == "x" and found is not None and found.shape == true.shape:
                s = torch.sigmoid(beta * x).detach()
                if torch.allclose(found, s + x.detach() * s * (1 - s), rtol=1e-10, atol=1e-12):
                    raise Fail(
                        "the gradient for x is missing the factor beta of the inner derivative",
                        "对 x 的梯度漏了内层导数里的因子 beta",
                        expected="g * (s + beta * x * s * (1 - s))",
                        found="g * (s + x * s * (1 - s))",
                        hint_en="sigmoid(beta * x) depends on x through beta * x, whose derivative is "
                        "beta: the chain rule multiplies sigmoid's derivative by it",
                        hint_zh="sigmoid(beta * x) 是通过 beta * x 依赖 x 的，而 beta * x 对 x 的导数是 "
                        "beta：链式法则要把 sigmoid 的导数再乘上它",
                    )
            raise Fail(
                f"the gradient for {name} is wrong",
                f"对 {name} 的梯度不对",
                expected=("sigmoid(βx) + βx·σ'(βx), times grad_output", "sigmoid(βx) + βx·σ'(βx)，再乘以 grad_output")
                if name == "x"
                else ("the sum of grad_output · x² · σ'(βx)", "grad_output · x² · σ'(βx) 的总和"),
                found=worst,
                hint_en="with s = sigmoid(beta * x), sigmoid's derivative is s * (1 - s); the chain rule "
                "gives grad_x = g * (s + beta * x * s * (1 - s)) and grad_beta = "
                "(g * x * x * s * (1 - s)).sum()",
                hint_zh="记 s = sigmoid(beta * x)，sigmoid 的导数是 s * (1 - s)；链式法则给出 grad_x = "
                "g * (s + beta * x * s * (1 - s))，grad_beta = (g * x * x * s * (1 - s)).sum()",
            )

        check(
            f"{case_en}: gradcheck(swish, (x, beta)) passes in float64",
            f"{case_zh}：gradcheck(swish, (x, beta)) 在 float64 下通过",
        )
        try:
            gradcheck(solution.swish, (x, beta))
        except GradcheckError as error:
            raise Fail(
                "gradcheck raised GradcheckError: the Jacobian from your backward does not match the "
                "finite differences",
                "gradcheck 抛出了 GradcheckError：用你的 backward 得到的雅可比矩阵和有限差分不一致",
                expected=("gradcheck returns True", "gradcheck 返回 True"),
                found=str(error).splitlines()[0].rstrip(","),
                hint_en="multiply by grad_output element by element: gradcheck calls backward with one-hot "
                "grad_outputs",
                hint_zh="要逐元素乘上 grad_output：gradcheck 调用 backward 时 grad_output 只有一个元素是 1",
            ) from None

        check(
            f"{case_en}: backward reads x and beta from ctx.saved_tensors (saved with ctx.save_for_backward), "
            "not from attributes of ctx or anywhere else: an in-place edit of either between forward and backward "
            "makes backward raise, and backward computes with the values ctx.saved_tensors gives back",
            f"{case_zh}：backward 从 ctx.saved_tensors（由 ctx.save_for_backward 保存）取 x 和 beta，而不是从 ctx "
            "的属性或别的地方取：两者中任何一个在 forward 和 backward 之间被原地修改，backward 都会报错；"
            "backward 用的是 ctx.saved_tensors 交回的值",
        )
        refuse_ctx_attributes(
            solution.swish(*draw(shape, seed, beta_value)),
            "ctx.save_for_backward(x, beta)",
            (
                "an attribute escapes the version check (an in-place edit of x before backward "
                "gives a silently wrong gradient) and lives as long as the graph; "
                "save_for_backward catches the edit and frees the tensors after a backward that "
                "does not retain the graph",
                "存成属性就躲过了版本检查（backward 之前原地改了 x，梯度会悄悄算错），而且和计算图活得"
                "一样久；save_for_backward 能发现这种修改，不保留计算图的反向传播之后也会释放这些张量",
            ),
        )
        for edited in ("x", "beta"):
            x, beta = draw(shape, seed, beta_value)
            out = solution.swish(x, beta)
            with torch.no_grad():
                (x if edited == "x" else beta).mul_(1)  # the same values, one version more
            try:
                torch.autograd.grad(out.sum(), (x, beta), allow_unused=True)
            except RuntimeError as error:
                if "modified by an inplace operation" in str(error):
                    continue
                raise
            raise Fail(
                f"backward did not notice an in-place edit of {edited}: ctx.save_for_backward did not get "
                f"{edited} itself",
                f"backward 没有发现 {edited} 被原地修改过：ctx.save_for_backward 拿到的不是 {edited} 本身",
                expected=(
                    f'{edited}.mul_(1) between forward and backward, then backward raises "modified '
                    'by an inplace operation"',
                    f"在 forward 和 backward 之间做 {edited}.mul_(1)，"
                    "backward 随后报 “modified by an inplace operation”",
                ),
                found=("backward ran without an error", "backward 照常运行，没有报错"),
                hint_en=f"ctx.save_for_backward(x, beta) in setup_context, and x, beta = ctx.saved_tensors in "
                f"backward; a copy ({edited}.item(), .numpy(), .clone()) or an attribute of ctx "
                "escapes the version check",
                hint_zh=f"在 setup_context 里 ctx.save_for_backward(x, beta)，在 backward 里 x, beta = "
                f"ctx.saved_tensors；存副本（{edited}.item()、.numpy()、.clone()）或者存成 ctx 的属性，"
                "都会躲过版本检查",
            )

        x, beta = draw(shape, seed, beta_value)
        found, others = read_back_doubled(solution, x, beta)
        at_given = expected_grads(x, beta)

        def close(found, want, **tolerance):
            return all(
                value is not None and value.shape == true.shape and torch.allclose(value, true, **tolerance)
                for value, true in zip(found, want)
            )

        if others:  # it saved more than x and beta (the output, say): the doubled x and beta must each count
            unused = [
                name
                for name in ("x", "beta")
                if close(read_back_doubled(solution, *draw(shape, seed, beta_value), doubled=(name,))[0], at_given)
            ]
            wrong = bool(unused)
        else:
            unused = []
            wrong = not close(found, expected_grads(2 * x, 2 * beta), rtol=1e-10, atol=1e-12)
        if wrong:
            elsewhere = not others and close(found, at_given)
            raise Fail(
                "Swish.backward does not read x and beta from ctx.saved_tensors: the values it computes with "
                "are not the ones ctx.saved_tensors gives back",
                "Swish.backward 不是从 ctx.saved_tensors 取的 x 和 beta：它算梯度用的值不是 ctx.saved_tensors "
                "交回的那些",
                expected=(
                    f"with a saved-tensor hook that gives back 2·{' and 2·'.join(unused)} (the other "
                    "saved tensors unchanged), other gradients",
                    f"保存张量的钩子让 ctx.saved_tensors 交回 2·{'、2·'.join(unused)}（另外保存的张量"
                    "不变）时，梯度随之改变",
                )
                if others
                else (
                    "with a saved-tensor hook that gives back 2x and 2beta, the gradients at 2x and 2beta",
                    "保存张量的钩子让 ctx.saved_tensors 交回 2x 和 2beta 时，得到在 2x、2beta 处的梯度",
                ),
                found=(
                    "the gradients at the x and beta that forward was given: backward took them from "
                    "somewhere else (an object on ctx, a closure, a global)",
                    "在 forward 收到的 x 和 beta 处的梯度：backward 是从别处取的它们（ctx 上的某个对象、"
                    "闭包、全局变量）",
                )
                if elsewhere or others
                else ("other gradients", "别的梯度"),
                hint_en="x, beta = ctx.saved_tensors in backward, and compute only from those: saved-tensor "
                "hooks (save_on_cpu, for one) can only reach what goes through save_for_backward",
                hint_zh="在 backward 里 x, beta = ctx.saved_tensors，只用它们来算：保存张量的钩子"
                "（比如 save_on_cpu）只能管到经过 save_for_backward 的张量",
            )
        for edited in ("x", "beta"):  # new values through .data, no new version: a copy still has the old ones
            x, beta = draw(shape, seed, beta_value)
            out = solution.swish(x, beta)
            (x if edited == "x" else beta).data.mul_(2)
            if close(torch.autograd.grad(out.sum(), (x, beta), allow_unused=True), at_given):
                raise Fail(
                    f"Swish.backward computes with a copy of {edited}, not with the {edited} that "
                    "ctx.saved_tensors gives back",
                    f"Swish.backward 用的是 {edited} 的副本，不是 ctx.saved_tensors 交回的 {edited}",
                    expected=(
                        f"after {edited}.data.mul_(2) between forward and backward, other gradients",
                        f"在 forward 和 backward 之间做 {edited}.data.mul_(2) 之后，梯度随之改变",
                    ),
                    found=(
                        f"the gradients at the {edited} that forward was given: backward took it from a "
                        "copy (an attribute of the tensor or of ctx, a closure, a global)",
                        f"在 forward 收到的 {edited} 处的梯度：backward 用的是副本（张量或 ctx 的属性、"
                        "闭包、全局变量）",
                    ),
                    hint_en="x, beta = ctx.saved_tensors in backward, and compute only from those",
                    hint_zh="在 backward 里 x, beta = ctx.saved_tensors，只用它们来算",
                )

        check(
            f"{case_en}: Swish.backward computes both derivatives itself in torch operations, without asking "
            "autograd (reverse or forward mode), a complex step, NumPy or another thread",
            f"{case_zh}：Swish.backward 用 torch 运算自己算出两个导数，不让 autograd 代劳（反向模式、前向模式都不行），"
            "也不用复步长法、NumPy 或另开线程",
        )
        returned, passes, seen = call_backward(solution, *draw(shape, seed, beta_value))
        refuse_autograd_in_backward(passes, seen)
        both_calls, both_elements = len(seen.calls), produced(seen)
        runs = {"both": seen}  # what backward did in each run, for the checks after the skipped gradients

        check(
            f"{case_en}: Swish.backward returns a gradient shaped like each input: {shape} for x, () for beta",
            f"{case_zh}：Swish.backward 返回的梯度和各自的输入同形状：x 是 {shape}，beta 是 ()",
        )
        shapes = [tuple(value.shape) if isinstance(value, torch.Tensor) else value for value in returned]
        if len(returned) != 2 or shapes != [shape, ()]:
            raise Fail(
                "Swish.backward returned gradients whose shapes differ from its inputs'",
                "Swish.backward 返回的梯度和输入的形状不一样",
                expected=f"(tensor{shape}, tensor())",
                found=f"{described(returned)}",
                hint_en="beta is one number used by every element: its gradient is the sum over all of "
                "them, (...).sum(); autograd would sum it for you, because it sums a gradient down "
                "to the input's shape when the input's shape broadcasts to the gradient's, and a "
                "0-dim beta broadcasts to any shape",
                hint_zh="beta 是每个元素都用到的一个数：它的梯度是对所有元素的求和，(...).sum()；autograd "
                "会替你求和，因为输入的形状能广播成梯度的形状时，它会把梯度加回输入的形状，"
                "而 0 维的 beta 能广播成任何形状",
            )

        for skipped, kept in (("beta", "x"), ("x", "beta")):
            x_grad = skipped == "beta"
            check(
                f"{case_en}: when {skipped} does not require grad, backward returns None for it and does not "
                "compute its gradient",
                f"{case_zh}：{skipped} 不要梯度时，backward 对它返回 None，也不去算它的梯度",
            )
            x, beta = draw(shape, seed, beta_value, x_grad=x_grad, beta_grad=not x_grad)
            returned, passes, seen = call_backward(solution, x, beta)
            refuse_autograd_in_backward(passes, seen)
            runs[skipped] = seen
            calls = len(seen.calls)
            index = 1 if skipped == "beta" else 0
            needs = (x_grad, not x_grad)
            if len(returned) != 2 or returned[index] is not None or returned[1 - index] is None:
                raise Fail(
                    f"returned a gradient for {skipped} although {skipped} does not require grad",
                    f"{skipped} 不要梯度，backward 却还是为它返回了一个梯度",
                    expected=(
                        f"ctx.needs_input_grad = {needs}: a gradient for {kept}, None for {skipped}",
                        f"ctx.needs_input_grad = {needs}：{kept} 有梯度，{skipped} 是 None",
                    ),
                    found=(f"backward returned {described(returned)}", f"backward 返回了 {described(returned)}"),
                    hint_en="test ctx.needs_input_grad[i] before computing a gradient, and return None for "
                    "the inputs that do not require grad: autograd would drop that gradient anyway, "
                    "so its work is wasted",
                    hint_zh="算每个梯度之前先看 ctx.needs_input_grad[i]，不要梯度的输入就返回 None：反正 autograd "
                    "会把那个梯度扔掉，算它纯属白费",
                )
            true_skipped = expected_grads(x, beta)[index]
            large = next(
                (name for name, value, _ in seen.results + seen.aten.results if value.numel() > LARGEST * x.numel()),
                None,
            )
            if large is not None:
                raise Fail(
                    f"backward made a tensor too large for the judge to search for the gradient for {skipped}",
                    f"backward 算出的张量太大，判题程序没法在里面查找对 {skipped} 的梯度",
                    expected=(
                        f"no tensor of more than {LARGEST} × x.numel() = {LARGEST * x.numel()} elements",
                        f"没有超过 {LARGEST} × x.numel() = {LARGEST * x.numel()} 个元素的张量",
                    ),
                    found=(f"{large} returned one", f"{large} 算出了一个"),
                    hint_en="swish is elementwise: every tensor its backward needs is as large as x, or smaller",
                    hint_zh="swish 是逐元素的：它的 backward 用到的张量都不会比 x 大",
                )
            if skipped == "x":  # x's gradient is elementwise: the gradient itself, shifted or scaled
                results = [(name, value) for name, value, _ in seen.results]
                results += [(f"aten.{name}", value) for name, value, _ in seen.aten.results]
                computed = next((name for name, value in results if affine_image(value, true_skipped)), None)
            else:  # beta's gradient is a sum over x's elements: any reduction of something as large as x,
                # or its summand g·x²·σ'(βx) (g is ones here), or x², which only that summand needs
                computed = next(
                    (
                        f"{name}"
                        for name, value, widest in seen.results
                        if widest >= x.numel()
                        and (x.numel() > value.numel() or name in CUMULATIVE)
                        and not makes_new(name)
                    ),
                    None,
                )
                computed = computed or next(
                    (f"aten.{name}" for name, length in seen.aten.contracted if length >= x.numel()), None
                )
                plain_x, plain_beta = x.detach(), beta.detach()
                sigmoid = torch.sigmoid(plain_beta * plain_x)
                summands = (("x²", plain_x * plain_x), ("x²·σ'(βx)", plain_x * plain_x * sigmoid * (1 - sigmoid)))
                results = [(name, value) for name, value, _ in seen.results]
                results += [(f"aten.{name}", value) for name, value, _ in seen.aten.results]
                summand = next(
                    ((name, term) for name, value in results for term, true in summands if affine_image(value, true)),
                    None,
                )
                if computed is None and summand is not None:
                    name, term = summand
                    raise Fail(
                        "backward computed the gradient for beta although beta does not require grad, and "
                        "returned None afterwards",
                        "beta 不要梯度，backward 却还是先算了它的梯度，最后才返回 None",
                        expected=(
                            "no tensor inside backward that holds x² or beta's summand "
                            "g·x²·σ'(βx), shifted or scaled or not, alone or among other elements: "
                            "grad_x needs neither",
                            "backward 里没有哪个张量含有 x² 或 beta 那一项 "
                            "g·x²·σ'(βx)（平移、缩放过的也算，单独的或混在别的元素里的都算）：grad_x "
                            "两者都用不到",
                        ),
                        found=(
                            f"torch.{name} returned {term} (or an affine image of it), which only the "
                            "gradient for beta needs",
                            f"torch.{name} 算出了 {term}（或它的平移、缩放），而只有对 beta 的梯度才用得到它",
                        ),
                        hint_en="compute the gradient for beta inside `if ctx.needs_input_grad[1]:`, all of "
                        "it, not only its sum",
                        hint_zh="对 beta 的梯度整个放在 `if ctx.needs_input_grad[1]:` 里面算，不要只把最后的求和放进去",
                    )
            if computed is not None:
                raise Fail(
                    f"backward computed the gradient for {skipped} although {skipped} does not require "
                    "grad, and returned None afterwards",
                    f"{skipped} 不要梯度，backward 却还是先算了它的梯度，最后才返回 None",
                    expected=(
                        "no tensor inside backward that holds the gradient for x, shifted or scaled "
                        "or not, alone or among other elements",
                        "backward 里没有哪个张量含有对 x 的梯度（平移、缩放过的也算，单独的或混在别的元素里的都算）",
                    )
                    if skipped == "x"
                    else (
                        "no reduction inside backward: grad_x is elementwise",
                        "backward 里没有任何归约：grad_x 是逐元素算的",
                    ),
                    found=(
                        f"torch.{computed} returned the gradient for x (or an affine image of it)",
                        f"torch.{computed} 算出了对 x 的梯度（或它的平移、缩放）",
                    )
                    if skipped == "x"
                    else (
                        f"torch.{computed} reduced a tensor at least as large as x ({x.numel()} elements), "
                        "as only the gradient for beta needs",
                        f"torch.{computed} 把不小于 x（{x.numel()} "
                        "个元素）的张量归约了，而只有对 beta 的梯度才需要归约",
                    ),
                    hint_en=f"compute the gradient for {skipped} inside `if ctx.needs_input_grad[{index}]:`, "
                    "not before it",
                    hint_zh=f"对 {skipped} 的梯度放在 `if ctx.needs_input_grad[{index}]:` 里面算，不要先算好再判断",
                )
            if skipped == "x" and both_elements - produced(seen) < x.numel():
                raise Fail(
                    "backward computed the gradient for x although x does not require grad, and returned "
                    "None afterwards",
                    "x 不要梯度，backward 却还是先算了它的梯度，最后才返回 None",
                    expected=(
                        f"at least {x.numel()} fewer elements made by torch operations (not views) "
                        f"than the {both_elements} made when both require grad: grad_x's last step, "
                        "a tensor as large as x, is skipped",
                        f"torch 运算（视图不算）产生的元素比两者都要梯度时的 {both_elements} 个至少少 "
                        f"{x.numel()} 个：grad_x 的最后一步产生一个和 x 一样大的张量，这一步该省掉",
                    ),
                    found=(f"{produced(seen)} elements", f"{produced(seen)} 个元素"),
                    hint_en="compute the gradient for x inside `if ctx.needs_input_grad[0]:`, not before it",
                    hint_zh="对 x 的梯度放在 `if ctx.needs_input_grad[0]:` 里面算，不要先算好再判断",
                )
            unread = seen.unread(tree_leaves(seen.returned))
            if unread:
                raise Fail(
                    f"backward computed a tensor that nothing used, although {skipped} does not require grad",
                    f"{skipped} 不要梯度，backward 却算了一个之后没人用的张量",
                    expected=(
                        f"every new tensor that backward makes is returned or feeds, through "
                        f"later torch calls, a returned one: with {skipped} skipped, only the "
                        f"gradient for {kept} is computed",
                        f"backward 新产生的每个张量，要么被返回，要么经过后面的 torch 调用流进返回的"
                        f"张量：{skipped} 跳过时，只算对 {kept} 的梯度",
                    ),
                    found=(
                        f"torch.{unread[0]} made one that no returned tensor was computed from",
                        f"torch.{unread[0]} 算出的张量没有流进任何返回的张量",
                    ),
                    hint_en=f"compute every part of the gradient for {skipped} inside "
                    f"`if ctx.needs_input_grad[{index}]:`, not only its last step",
                    hint_zh=f"对 {skipped} 的梯度，每一步都放在 `if ctx.needs_input_grad[{index}]:` 里面算，"
                    "不要只把最后一步放进去",
                )
            if calls >= both_calls:
                raise Fail(
                    f"backward computed the gradient for {skipped} although {skipped} does not require "
                    "grad, and returned None afterwards",
                    f"{skipped} 不要梯度，backward 却还是先算了它的梯度，最后才返回 None",
                    expected=(
                        f"fewer torch calls than the {both_calls} made when both require grad",
                        f"torch 调用次数少于两者都要梯度时的 {both_calls} 次",
                    ),
                    found=(f"{calls} torch calls", f"{calls} 次 torch 调用"),
                    hint_en=f"compute the gradient for {skipped} inside `if ctx.needs_input_grad[{index}]:`, "
                    "not before it",
                    hint_zh=f"对 {skipped} 的梯度放在 `if ctx.needs_input_grad[{index}]:` 里面算，不要先算好再判断",
                )

        check(
            f"{case_en}: Swish.backward evaluates sigmoid, exp, tanh and the like only at ±beta·x: no finite "
            "differences",
            f"{case_zh}：Swish.backward 只在 ±beta·x 处求 sigmoid、exp、tanh 这类函数的值：不用有限差分",
        )
        for seen in runs.values():
            refuse_finite_differences(seen)

        check(
            f"{case_en}: when beta does not require grad, backward uses only elementwise operations, views and "
            "new tensors made from a shape",
            f"{case_zh}：beta 不要梯度时，backward 只用逐元素运算、视图和按形状新建的张量",
        )
        other = sorted(set(runs["beta"].aten.other))
        if other:  # a sum can hide in any operation that is not elementwise
            raise Fail(
                "backward used an operation that is not elementwise although beta does not require grad: "
                "grad_x needs none, only the gradient for beta does",
                "beta 不要梯度，backward 却用了非逐元素的运算：grad_x 用不到它，只有对 beta 的梯度才用得到",
                expected=(
                    "only elementwise operations, views, and new tensors made from a shape "
                    "(zeros_like, new_ones, ...) inside backward",
                    "backward 里只有逐元素运算、视图，以及按形状新建的张量（zeros_like、new_ones 等）",
                ),
                found=(f"aten.{other[0]}, which is none of these", f"aten.{other[0]}，这几样都不是"),
                hint_en="compute the gradient for beta inside `if ctx.needs_input_grad[1]:`, all of it",
                hint_zh="对 beta 的梯度整个放在 `if ctx.needs_input_grad[1]:` 里面算",
            )

        check(
            f"{case_en}: torch.func.grad gives the same two gradients (it accepts only the setup_context style)",
            f"{case_zh}：torch.func.grad 给出同样的两个梯度（它只接受 setup_context 写法）",
        )
        plain_x, plain_beta = (t.detach() for t in draw(shape, seed, beta_value))
        true_x, true_beta = expected_grads(plain_x, plain_beta)
        try:
            by_func = torch.func.grad(lambda a, b: solution.swish(a, b).sum(), argnums=(0, 1))(plain_x, plain_beta)
        except RuntimeError as error:
            raise Fail(
                "torch.func.grad refused Swish",
                "torch.func.grad 不接受 Swish",
                expected=("the gradients for x and beta", "对 x 和 beta 的梯度"),
                found=f"RuntimeError: {str(error).splitlines()[0][:200]}",
                hint_en="forward(x, beta) only computes; setup_context(ctx, inputs, output) saves; "
                "backward reads ctx.saved_tensors and uses torch operations only (no .numpy(), "
                ".item() or requires_grad_() inside)",
                hint_zh="forward(x, beta) 只管计算；setup_context(ctx, inputs, output) 负责保存；"
                "backward 从 ctx.saved_tensors 取，只用 torch 运算（里面不用 .numpy()、.item() "
                "或 requires_grad_()）",
            ) from None
        pairs = list(zip(by_func, (true_x, true_beta)))
        if not all(torch.allclose(found, true, rtol=1e-10, atol=1e-12) for found, true in pairs):
            off = max((found - true).abs().max().item() for found, true in pairs)
            raise Fail(
                "torch.func.grad gives different gradients from plain autograd",
                "torch.func.grad 给出的梯度和普通 autograd 的不一样",
                expected=("the gradients checked above", "上面检查过的那两个梯度"),
                found=(f"off by up to {off:.3g}", f"最多差 {off:.3g}"),
                hint_en="compute the gradients from ctx.saved_tensors with torch operations only",
                hint_zh="只用 torch 运算、从 ctx.saved_tensors 算梯度",
            )
