"""Exercises of the chapter autograd-grad."""

import math

import torch

from exercise_judge.checking import Fail, described, exercise, shown, times
from exercise_judge.checks._shared import explained, hint_for, refuse_passes
from exercise_judge.spies import autograd_passes, counted


class Shadow(torch.autograd.Function):
    """f(t) = 0 everywhere, yet autograd is told f'(t) = 5t⁴: only autograd can find its derivatives."""

    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return torch.zeros_like(t)

    @staticmethod
    def backward(ctx, grad_output):
        (t,) = ctx.saved_tensors
        return grad_output * 5 * t ** 4


ONE_NUMBER = ("a 0-dim tensor (or a float)", "一个 0 维张量（或 float）")


def _number(found, call: str) -> float:
    """The reader's result as a float, or a Fail that says why it is not one number."""
    if isinstance(found, (tuple, list)):
        raise Fail(f"{call} returned a {type(found).__name__}, not one number",
                   f"{call} 返回了 {type(found).__name__}，不是一个数",
                   expected=ONE_NUMBER, found=shown(found),
                   hint_en="torch.autograd.grad returns a tuple, one gradient per input: take its [0]",
                   hint_zh="torch.autograd.grad 返回元组，每个输入一个梯度：取它的 [0]")
    if isinstance(found, torch.Tensor) and found.numel() == 1:
        return found.item()
    if isinstance(found, (int, float)) and not isinstance(found, bool):
        return float(found)
    raise Fail(f"{call} must return the second derivative at x, one number",
               f"{call} 应当返回 x 处的二阶导数，一个数",
               expected=ONE_NUMBER, found=described(found),
               hint_en="return the result of the second torch.autograd.grad call, [0]",
               hint_zh="返回第二次 torch.autograd.grad 的结果的 [0]")


def _call(solution, f, x):
    with explained("does not require grad",
                   ("differentiating the first derivative raised: it has no grad_fn, because the backward pass "
                    "that computed it was not recorded",
                    "对一阶导数求导时报错：它没有 grad_fn，因为算出它的那次反向传播没有被记录下来"),
                   ("a first derivative with a grad_fn, which can be differentiated again",
                    "带 grad_fn 的一阶导数，可以再求导"),
                   ("pass create_graph=True to the first torch.autograd.grad call: it records the backward "
                    "pass as a graph, so the derivative can be differentiated",
                    "第一次调用 torch.autograd.grad 时加上 create_graph=True：它把反向传播也记成计算图，"
                    "一阶导数才能再求导")):
        return solution.second_derivative(f, x)


@exercise("autograd-grad/second-derivative",
          en="a second derivative with torch.autograd.grad",
          zh="用 torch.autograd.grad 求二阶导数")
def second_derivative(solution, check):
    x = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    call = "second_derivative(lambda x: x**3, x=3.0)"
    check(f"{call} is 6x = 18", f"{call} 等于 6x = 18")
    found = _number(_call(solution, lambda t: t**3, x), call)
    if not math.isclose(found, 18.0, rel_tol=1e-9):
        hint_en, hint_zh = hint_for(found, {
            27.0: ("27 is x³ and also 3x², the first derivative: differentiate once more",
                   "27 既是 x³，也是一阶导数 3x²：还要再求一次导"),
            45.0: ("45 is 3x² + 6x: a backward() added the second derivative onto the first in x.grad; "
                   "use torch.autograd.grad, which returns gradients instead of adding them",
                   "45 是 3x² + 6x：backward() 把二阶导数累加到了 x.grad 里的一阶导数上；"
                   "改用 torch.autograd.grad，它返回梯度而不是累加"),
        }, ("take the gradient of f(x) with create_graph=True, then the gradient of that gradient",
            "先带 create_graph=True 求 f(x) 的梯度，再对这个梯度求梯度"), rel_tol=1e-9)
        raise Fail("the value is not the second derivative of x³ at 3",
                   "返回值不是 x³ 在 3 处的二阶导数",
                   expected="18", found=f"{found:g}", hint_en=hint_en, hint_zh=hint_zh)

    check("x.grad is still None afterwards", "之后 x.grad 仍是 None")
    if x.grad is not None:
        raise Fail("second_derivative wrote into x.grad", "second_derivative 往 x.grad 里写了东西",
                   expected="None", found=shown(x.grad),
                   hint_en="backward() adds into .grad; torch.autograd.grad returns the gradient and leaves "
                           ".grad alone: use it for both derivatives",
                   hint_zh="backward() 会累加进 .grad；torch.autograd.grad 把梯度返回给你，不碰 .grad：两次求导都用它")

    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    call = "second_derivative(torch.sin, x=0.5)"
    expected = -math.sin(0.5)
    check(f"{call} is -sin(0.5) = {expected:.6f}", f"{call} 等于 -sin(0.5) = {expected:.6f}")
    found = _number(_call(solution, torch.sin, x), call)
    if not math.isclose(found, expected, rel_tol=1e-9):
        hint_en, hint_zh = hint_for(found, {
            math.cos(0.5): ("that is cos(0.5), the first derivative: differentiate once more",
                            "这是 cos(0.5)，一阶导数：还要再求一次导"),
            math.sin(0.5): ("that is sin(0.5) itself: return the derivative of the derivative, not f(x)",
                            "这是 sin(0.5) 本身：要返回导数的导数，而不是 f(x)"),
        }, ("use the function you are given, f, and differentiate f(x) twice with respect to x",
            "用传进来的函数 f，对 x 把 f(x) 求两次导"), rel_tol=1e-9)
        raise Fail("the value is not the second derivative of sin at 0.5",
                   "返回值不是 sin 在 0.5 处的二阶导数",
                   expected=f"{expected:.6f}", found=f"{found:.6f}", hint_en=hint_en, hint_zh=hint_zh)

    # --- the method: both derivatives from torch.autograd.grad, called by the reader's own code ---
    check("second_derivative calls no backward(), not even one undone by x.grad = None",
          "second_derivative 不调用 backward()，哪怕之后把 x.grad 设回 None 也不行")
    x = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    with autograd_passes() as passes:
        _call(solution, lambda t: t**3, x)
    refuse_passes([found for found in passes if found.kind == "backward()"],
                  ("second_derivative called backward(): it wrote into x.grad, even if it set it back to None "
                   "afterwards",
                   "second_derivative 调用了 backward()：它往 x.grad 里写过东西，即使之后又设回了 None"),
                  ("no backward(), only torch.autograd.grad", "不调用 backward()，只用 torch.autograd.grad"),
                  ("backward() adds into .grad; torch.autograd.grad returns the gradient: use it for both "
                   "derivatives",
                   "backward() 会累加进 .grad；torch.autograd.grad 把梯度返回给你：两次求导都用它"))

    check("your code calls torch.autograd.grad itself, twice, the first time with create_graph=True",
          "你的代码亲自调用两次 torch.autograd.grad，第一次带 create_graph=True")
    mine = [found for found in passes if found.by(solution.__file__)]  # backward() was ruled out above
    if len(mine) < 2 or not mine[0].create_graph:
        others = [found for found in passes if not found.by(solution.__file__)]
        plain = mine and not mine[0].create_graph
        found_en = f"calls from your code: {len(mine)}" + (", the first without create_graph=True" if plain else "")
        found_zh = f"你的代码调用了 {len(mine)} 次" + ("，第一次没带 create_graph=True" if plain else "")
        if others:
            others_en, others_zh = counted(others)
            found_en += f"; {others_en}"
            found_zh += f"；{others_zh}"
        raise Fail(f"your code called torch.autograd.grad {times(len(mine))}: expected twice, the first time with "
                   f"create_graph=True",
                   f"你的代码调用了 {len(mine)} 次 torch.autograd.grad：应当两次，第一次带 create_graph=True",
                   expected=("torch.autograd.grad(f(x), x, create_graph=True), then torch.autograd.grad on its result",
                             "先 torch.autograd.grad(f(x), x, create_graph=True)，再对它的结果调用 torch.autograd.grad"),
                   found=(found_en, found_zh),
                   hint_en="don't let another function (torch.func, torch.autograd.functional.hessian) or a formula "
                           "do it: call torch.autograd.grad twice yourself",
                   hint_zh="不要让别的函数（torch.func、torch.autograd.functional.hessian）或公式代劳："
                           "自己调用两次 torch.autograd.grad")

    x = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    call = "second_derivative(f, x=1.5)"
    check(f"{call} is 20x³ = 67.5 for an f whose derivative only autograd knows (its value is 0, its derivative 5x⁴)",
          f"对一个只有 autograd 知道导数的 f（值恒为 0，导数是 5x⁴），{call} 等于 20x³ = 67.5")
    found = _number(_call(solution, Shadow.apply, x), call)
    if not math.isclose(found, 67.5, rel_tol=1e-9):
        raise Fail(f"{call} is not 67.5: the result did not come from differentiating f with autograd",
                   f"{call} 不等于 67.5：结果不是用 autograd 对 f 求导得来的",
                   expected="67.5", found=f"{found:g}",
                   hint_en="return what the second torch.autograd.grad call gives, for whatever f you are given: "
                           "no formula, no special case for the functions the page names",
                   hint_zh="不管传进来的 f 是什么，都返回第二次 torch.autograd.grad 的结果：不要用公式，"
                           "也不要为页面上提到的函数单独处理")
