"""Exercises of the chapter autograd-grad."""

import math
import random
import sys
from typing import NamedTuple

import torch

from exercise_judge.checking import Fail, described, exercise, shown
from exercise_judge.checks._shared import explained, hint_for, refuse_passes
from exercise_judge.spies import Pass, autograd_passes, counted

GRAD = "torch.autograd.grad"


class _Link(NamedTuple):
    """One differentiation of a first derivative: the pass that recorded the derivative, the pass that
    differentiated it (None for a pass that did not go through the judge's spies on
    torch.autograd.grad and torch.autograd.backward), and the factor that pass's result was marked with."""

    recorded: Pass | None
    differentiated: Pass | None
    factor: float


class _Watch:
    """What the marker Functions saw during one call of the reader's function."""

    passes: list = []  # the backward passes recorded by spies.autograd_passes() for the call
    links: list[_Link] = []


_RANDOM = random.SystemRandom()  # not reseeded by a reader's random.seed


def _next_factor() -> float:
    """1 plus a few parts in ten million, at least 1e-7 away from the factor of every other link of
    the call: a value carrying it can only be the result of that link's pass."""
    return 1 + 1e-7 * (2 * len(_Watch.links) + 1 + _RANDOM.random())


def _current_pass() -> Pass | None:
    """The backward pass running now. The spy appends its Pass to the recording before it runs the
    engine, and on CPU the engine calls our backward on the caller's thread, under the spy's frame:
    so it is the last Pass recorded, provided that a spy is on the stack."""
    spy = torch.autograd.grad.__code__  # the judge installed its spies before the reader's file ran
    frame = sys._getframe(1)
    while frame is not None and frame.f_code is not spy:
        frame = frame.f_back
    return _Watch.passes[-1] if frame is not None and _Watch.passes else None


class _Origin:
    """The pass that recorded a first derivative (a plain object: apply() passes it on untouched)."""

    def __init__(self, found: Pass | None):
        self.found = found


class _Mark(torch.autograd.Function):
    """Identity on a gradient. Differentiating through it records which pass does so and which pass
    recorded it, and multiplies the derivative by a factor drawn for that pass: the second derivative
    that pass computes carries it."""

    @staticmethod
    def forward(grad, origin):
        return grad.clone()

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.origin = inputs[1]

    @staticmethod
    def backward(ctx, grad):
        factor = _next_factor()
        _Watch.links.append(_Link(ctx.origin.found, _current_pass(), factor))
        return grad * factor, None


class _Tap(torch.autograd.Function):
    """Identity on x. Its backward hands the gradient on through _Mark: when that backward pass is
    recorded (create_graph=True), the first derivative's graph holds a _Mark node."""

    @staticmethod
    def forward(t):
        return t.clone()

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        return _Mark.apply(grad, _Origin(_current_pass() if torch.is_grad_enabled() else None))


def _tapped(function, name: str):
    """function(x), with _Tap between x and function: the same values and derivatives, watched."""

    def tapped(t):
        return function(_Tap.apply(t))

    tapped.__name__ = tapped.__qualname__ = name
    return tapped


class _FirstDerivative(torch.autograd.Function):
    """5t⁴, whose own derivative autograd is told is 7 (the truth is 20t³)."""

    @staticmethod
    def forward(t):
        return 5 * t**4

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, grad):
        return 7 * grad


class _Liar(torch.autograd.Function):
    """f(t) = 0 everywhere; autograd is told f'(t) = 5t⁴, and that the derivative of that is 7: only
    autograd differentiating the first derivative finds 7 (a formula or finite differences find 0 or 20t³)."""

    @staticmethod
    def forward(t):
        return torch.zeros_like(t)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad):
        (t,) = ctx.saved_tensors
        return grad * _FirstDerivative.apply(t)


LIAR = _Liar.apply  # one object, so that a case can be recognised by `is`

ONE_NUMBER = ("a 0-dim tensor (or a float)", "一个 0 维张量（或 float）")


def _number(found, call: str) -> float:
    """The reader's result as a float, or a Fail that says why it is not one number."""
    if isinstance(found, (tuple, list)):
        raise Fail(
            f"{call} returned a {type(found).__name__}, not one number",
            f"{call} 返回了 {type(found).__name__}，不是一个数",
            expected=ONE_NUMBER,
            found=shown(found),
            hint_en="torch.autograd.grad returns a tuple, one gradient per input: take its [0]",
            hint_zh="torch.autograd.grad 返回元组，每个输入一个梯度：取它的 [0]",
        )
    if isinstance(found, torch.Tensor) and found.numel() == 1:
        return found.item()
    if isinstance(found, (int, float)) and not isinstance(found, bool):
        return float(found)
    raise Fail(
        f"{call} must return the second derivative at x, one number",
        f"{call} 应当返回 x 处的二阶导数，一个数",
        expected=ONE_NUMBER,
        found=described(found),
        hint_en="return the result of the second torch.autograd.grad call, [0]",
        hint_zh="返回第二次 torch.autograd.grad 的结果的 [0]",
    )


def _call(solution, f, x):
    """solution.second_derivative(f, x), its backward passes recorded in _Watch."""
    _Watch.links = []
    with (
        autograd_passes() as passes,
        explained(
            "does not require grad",
            (
                "differentiating the first derivative raised: it has no grad_fn, because the backward pass "
                "that computed it was not recorded",
                "对一阶导数求导时报错：它没有 grad_fn，因为算出它的那次反向传播没有被记录下来",
            ),
            (
                "a first derivative with a grad_fn, which can be differentiated again",
                "带 grad_fn 的一阶导数，可以再求导",
            ),
            (
                "pass create_graph=True to the first torch.autograd.grad call: it records the backward "
                "pass as a graph, so the derivative can be differentiated",
                "第一次调用 torch.autograd.grad 时加上 create_graph=True：它把反向传播也记成计算图，一阶导数才能再求导",
            ),
        ),
    ):
        _Watch.passes = passes
        return solution.second_derivative(f, x), passes


# Each case: f as the verdict shows it, the __name__ the reader's f gets, f, x, the second derivative,
# it in words (en, zh), where (en, zh), and a hint for each wrong number the case invites.
CASES = (
    (
        "lambda x: x**3",
        "cube",
        lambda t: t**3,
        3.0,
        18.0,
        ("6x = 18", "6x = 18"),
        ("x³ at 3", "x³ 在 3 处"),
        {
            27.0: (
                "27 is x³ and also 3x², the first derivative: differentiate once more",
                "27 既是 x³，也是一阶导数 3x²：还要再求一次导",
            ),
            45.0: (
                "45 is 3x² + 6x: a backward() added the second derivative onto the first in x.grad; "
                "use torch.autograd.grad, which returns gradients instead of adding them",
                "45 是 3x² + 6x：backward() 把二阶导数累加到了 x.grad 里的一阶导数上；"
                "改用 torch.autograd.grad，它返回梯度而不是累加",
            ),
        },
    ),
    (
        "sin",
        "sin",
        torch.sin,
        0.5,
        -math.sin(0.5),
        (f"-sin(0.5) = {-math.sin(0.5):.6f}",) * 2,
        ("sin at 0.5", "sin 在 0.5 处"),
        {
            math.cos(0.5): (
                "that is cos(0.5), the first derivative: differentiate once more",
                "这是 cos(0.5)，一阶导数：还要再求一次导",
            ),
            math.sin(0.5): (
                "that is sin(0.5) itself: return the derivative of the derivative, not f(x)",
                "这是 sin(0.5) 本身：要返回导数的导数，而不是 f(x)",
            ),
        },
    ),
    (
        "f",
        "f",
        LIAR,
        1.5,
        7.0,
        (
            "7 for an f whose derivatives only autograd knows (f is 0 everywhere; autograd is told f′ = 5x⁴, "
            "and that the derivative of that is 7)",
            "7，这个 f 的导数只有 autograd 知道（f 处处为 0；autograd 被告知 f′ = 5x⁴，又被告知 5x⁴ 的导数是 7）",
        ),
        ("f at 1.5", "f 在 1.5 处"),
        {
            67.5: (
                "67.5 is 20x³, the derivative of 5x⁴ worked out by hand or by finite differences; this "
                "f's first derivative tells autograd that its own derivative is 7",
                "67.5 是 20x³，即手算或用有限差分得到的 5x⁴ 的导数；这个 f 的一阶导数告诉 autograd 它自己的导数是 7",
            ),
            25.3125: (
                "that is 5x⁴, the first derivative: differentiate once more",
                "这是 5x⁴，一阶导数：还要再求一次导",
            ),
            0.0: (
                "0 is f(x) itself, or a formula: return what autograd gives by differentiating the first derivative",
                "0 是 f(x) 本身，或者是公式算的：要返回 autograd 对一阶导数求导的结果",
            ),
        },
    ),
)

EXPECTED_METHOD = (
    "torch.autograd.grad(f(x), x, create_graph=True) in your code, then torch.autograd.grad of "
    "what it returned, also in your code",
    "你的代码先调用 torch.autograd.grad(f(x), x, create_graph=True)，再对它返回的结果调用 torch.autograd.grad",
)


def _origin(found: Pass | None) -> tuple[str, str]:
    if found is None:
        return (
            "a backward pass that did not go through torch.autograd.grad",
            "一次没有经过 torch.autograd.grad 的反向传播",
        )
    return found.origin, found.origin


def _mine(found: Pass | None, file: str) -> bool:
    return found is not None and found.kind == GRAD and found.by(file)


def _linked(link: _Link, file: str) -> bool:
    """Both passes of the link are the reader's own torch.autograd.grad calls, and the first was asked
    for create_graph=True (grad mode switched on inside a pass from hooks records a graph without it)."""
    return _mine(link.recorded, file) and link.recorded.create_graph and _mine(link.differentiated, file)


def _refuse_other_methods(solution, call: str, x, passes) -> None:
    """Fail unless the reader's own torch.autograd.grad calls took both derivatives: one recorded the
    first derivative and was asked for create_graph=True, and a later one differentiated what it returned; no backward()
    ran and x.grad is still None."""
    if x.grad is not None:
        raise Fail(
            f"{call} wrote into x.grad",
            f"{call} 往 x.grad 里写了东西",
            expected="None",
            found=shown(x.grad),
            hint_en="backward() adds into .grad; torch.autograd.grad returns the gradient and leaves "
            ".grad alone: use it for both derivatives",
            hint_zh="backward() 会累加进 .grad；torch.autograd.grad 把梯度返回给你，不碰 .grad：两次求导都用它",
        )
    refuse_passes(
        [found for found in passes if found.kind == "backward()"],
        (
            f"{call} called backward(): it wrote into x.grad, even if it set it back to None afterwards",
            f"{call} 调用了 backward()：它往 x.grad 里写过东西，即使之后又设回了 None",
        ),
        ("no backward(), only torch.autograd.grad", "不调用 backward()，只用 torch.autograd.grad"),
        (
            "backward() adds into .grad; torch.autograd.grad returns the gradient: use it for both derivatives",
            "backward() 会累加进 .grad；torch.autograd.grad 把梯度返回给你：两次求导都用它",
        ),
    )
    file = solution.__file__
    if any(_linked(link, file) for link in _Watch.links):
        return
    calls_en, calls_zh = counted(passes) if passes else ("no backward pass", "没有任何反向传播")
    if not _Watch.links:
        raise Fail(
            f"{call}: no torch.autograd.grad call differentiated the first derivative",
            f"{call}：没有哪次 torch.autograd.grad 调用对一阶导数求了导",
            expected=EXPECTED_METHOD,
            found=(
                f"{calls_en}; none of them differentiated a first derivative",
                f"{calls_zh}；其中没有一次是对一阶导数求导",
            ),
            hint_en="differentiate the tensor the first call returned with a second torch.autograd.grad "
            "call: differences of first derivatives at nearby points approximate the second "
            "derivative, they do not compute it",
            hint_zh="用第二次 torch.autograd.grad 对第一次调用返回的张量求导：用相邻点的一阶导数做差分，"
            "只是近似二阶导数，不是把它算出来",
        )
    unasked = [link for link in _Watch.links if _mine(link.recorded, file) and _mine(link.differentiated, file)]
    if unasked:
        raise Fail(
            f"{call}: the first derivative was recorded by a torch.autograd.grad call without create_graph=True",
            f"{call}：一阶导数是由一次没有传 create_graph=True 的 torch.autograd.grad 调用记录的",
            expected=EXPECTED_METHOD,
            found=(
                f"{calls_en}; the first of the pair ran with create_graph=False",
                f"{calls_zh}；这两次调用中的第一次用的是 create_graph=False",
            ),
            hint_en="ask for the graph of the first derivative with create_graph=True, not by switching "
            "grad mode on during the backward pass",
            hint_zh="用 create_graph=True 让第一次求导记录计算图，不要在反向传播途中打开梯度模式",
        )
    recorded, differentiated, _ = _Watch.links[0]
    (recorded_en, recorded_zh), (differentiated_en, differentiated_zh) = _origin(recorded), _origin(differentiated)
    raise Fail(
        f"{call}: the first derivative was recorded by {recorded_en} and differentiated by "
        f"{differentiated_en}, not both by torch.autograd.grad calls of your code",
        f"{call}：一阶导数由 {recorded_zh} 记录、由 {differentiated_zh} 求导，"
        f"不是两次都由你的代码调用 torch.autograd.grad 完成",
        expected=EXPECTED_METHOD,
        found=(
            f"{calls_en}; first derivative recorded by {recorded_en}, differentiated by {differentiated_en}",
            f"{calls_zh}；一阶导数由 {recorded_zh} 记录，由 {differentiated_zh} 求导",
        ),
        hint_en="don't let another function (torch.func, torch.autograd.functional) take a derivative: "
        "call torch.autograd.grad on f(x), then on its result, yourself",
        hint_zh="不要让别的函数（torch.func、torch.autograd.functional）代劳求导：自己对 f(x) 调用 "
        "torch.autograd.grad，再对它的结果调用一次",
    )


def _marked_by(found: float, expected: float) -> list[_Link]:
    """The links whose pass computed `found`: the expected value times that pass's factor."""
    return [link for link in _Watch.links if math.isclose(found, expected * link.factor, rel_tol=1e-10)]


def _refuse_a_value_from_elsewhere(solution, call: str, found: float, expected: float) -> None:
    """Fail unless `found` is what one of the reader's own differentiating calls computed."""
    file = solution.__file__
    marked = _marked_by(found, expected)
    if any(_linked(link, file) for link in marked):
        return
    if marked:
        by_en, by_zh = _origin(marked[0].differentiated)
        text = (
            f"{call}: the value is the second derivative {by_en} computed, not the number your second "
            f"torch.autograd.grad call returned",
            f"{call}：返回值是 {by_zh} 算出的二阶导数，不是你第二次调用 torch.autograd.grad 返回的数",
        )
        found_text = (f"the result of {by_en}", f"{by_zh} 的结果")
    else:
        text = (
            f"{call}: the value is not the number your second torch.autograd.grad call returned: the "
            f"result did not come from autograd differentiating the first derivative",
            f"{call}：返回值不是你第二次调用 torch.autograd.grad 返回的数，结果不是 autograd 对一阶导数求导得来的",
        )
        found_text = (
            "a number computed some other way (a formula, a table, a copy?)",
            "用别的办法得到的数（公式、查表、手抄？）",
        )
    raise Fail(
        *text,
        expected=(
            "the [0] of your second torch.autograd.grad call, or its .item()",
            "你第二次调用 torch.autograd.grad 的结果的 [0]，或者它的 .item()",
        ),
        found=found_text,
        hint_en="the judge's f marks each second derivative autograd computes through it with a factor "
        "a few parts in ten million away from 1, different for every differentiation: only the "
        "result of your own second call carries the mark of your call",
        hint_zh="评测给的 f 会给 autograd 经过它算出的每个二阶导数乘上一个与 1 只差千万分之几的因子，"
        "每次求导都不同：只有你自己第二次调用的结果带着这次调用的标记",
    )


@exercise(
    "autograd-grad/second-derivative",
    en="a second derivative with torch.autograd.grad",
    zh="用 torch.autograd.grad 求二阶导数",
)
def second_derivative(solution, check):
    for shown_f, name, function, at, expected, expected_text, where, mistakes in CASES:
        call = f"second_derivative({shown_f}, x={at})"
        check(f"{call} is {expected_text[0]}", f"{call} 等于 {expected_text[1]}")
        x = torch.tensor(at, dtype=torch.float64, requires_grad=True)
        returned, passes = _call(solution, _tapped(function, name), x)
        found = _number(returned, call)
        if not _marked_by(found, expected) and not math.isclose(found, expected, rel_tol=1e-9):
            if math.isclose(found, expected, rel_tol=1e-3):
                otherwise = (
                    "close, but not the second derivative autograd computes: an approximation (finite "
                    "differences?) is not enough; differentiate the first derivative with a second "
                    "torch.autograd.grad call",
                    "接近，但不是 autograd 算出的二阶导数：近似（有限差分？）不够，要用第二次 "
                    "torch.autograd.grad 对一阶导数求导",
                )
            elif function is LIAR:
                otherwise = (
                    "return what the second torch.autograd.grad call gives, for whatever f you are given: "
                    "no formula, no special case for the functions the page names",
                    "不管传进来的 f 是什么，都返回第二次 torch.autograd.grad 的结果：不要用公式，"
                    "也不要为页面上提到的函数单独处理",
                )
            else:
                otherwise = (
                    "use the function you are given, f, and differentiate f(x) twice with respect to x",
                    "用传进来的函数 f，对 x 把 f(x) 求两次导",
                )
            # 1e-5: a wrong number made by autograd carries a factor a few parts in ten million from 1
            hint_en, hint_zh = hint_for(found, mistakes, otherwise, rel_tol=1e-5)
            raise Fail(
                f"the value is not the second derivative of {where[0]}"
                + (
                    ": the result did not come from autograd differentiating the first derivative"
                    if function is LIAR
                    else ""
                ),
                f"返回值不是 {where[1]}的二阶导数"
                + ("：结果不是 autograd 对一阶导数求导得来的" if function is LIAR else ""),
                expected=f"{expected:.12g}",
                found=f"{found:.12g}",
                hint_en=hint_en,
                hint_zh=hint_zh,
            )

        check(
            f"{call}: your own torch.autograd.grad calls take both derivatives (the first with "
            f"create_graph=True) and the value is what the second returned; no backward(), x.grad still None",
            f"{call}：两次求导都由你自己调用 torch.autograd.grad 完成（第一次带 create_graph=True），"
            f"返回的正是第二次调用的结果；不调用 backward()，x.grad 仍是 None",
        )
        _refuse_other_methods(solution, call, x, passes)
        _refuse_a_value_from_elsewhere(solution, call, found, expected)
