"""Exercises of the chapter graph-lifecycle."""

import ast
import numbers

import torch

from exercise_judge.checking import Fail, exercise, starter, times
from exercise_judge.checks._shared import hint_for, refuse_passes
from exercise_judge.spies import autograd_passes


def run_shown_code(function: str) -> torch.Tensor:
    """w after the code that the starter shows in the docstring of `function`, run for real: the
    judge compares the reader's prediction with what that very code leaves in w.grad."""
    source = starter("graph-lifecycle/predict-grad").read_text(encoding="utf-8")
    shown = next(ast.get_docstring(node) for node in ast.parse(source).body
                 if isinstance(node, ast.FunctionDef) and node.name == function)
    namespace = {"torch": torch}
    exec(shown.split("\n", 1)[1], namespace)  # the docstring asks its question, then shows the code
    return namespace["w"]


def a_number(value, call):
    """The reader's prediction as a float, or a Fail that says what came back instead."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, torch.Tensor):
        found = (f"a tensor of shape {list(value.shape)}", f"一个形状为 {list(value.shape)} 的张量")
        hint_en = "write the value you predict, e.g. `return 2.5`; do not run the loop to get a tensor"
        hint_zh = "直接写出你预测的值，比如 `return 2.5`；不要运行循环去拿一个张量"
    else:
        found = (f"{value!r} (a {type(value).__name__})", f"{value!r}（{type(value).__name__} 类型）")
        hint_en = "end the function with `return` and the value you predict, e.g. `return 2.5`"
        hint_zh = "在函数末尾用 `return` 返回你预测的值，比如 `return 2.5`"
    raise Fail(f"{call} must return a number, your prediction", f"{call} 应当返回一个数，也就是你的预测",
               expected=("a float such as 2.5", "一个 float，比如 2.5"), found=found,
               hint_en=hint_en, hint_zh=hint_zh)


@exercise("graph-lifecycle/predict-grad",
          en="predict w.grad after several backward calls, without running them",
          zh="不运行代码，预测几次反向之后的 w.grad")
def predict_grad(solution, check):
    real, steps = run_shown_code("predicted_grad").grad.item(), [float(i + 1) for i in range(5)]  # step i adds i + 1
    check("predicted_grad(): w.grad after five backward calls in a loop",
          "predicted_grad()：循环里反向五次之后的 w.grad")
    predicted = a_number(solution.predicted_grad(), "predicted_grad()")
    if abs(predicted - real) > 1e-6:
        hint_en, hint_zh = hint_for(predicted, {
            steps[-1]: (f"{predicted:g} is the gradient of the last step alone. backward adds its gradient to "
                        f"w.grad (AccumulateGrad does `w.grad += gradient`), it never replaces it: every one of "
                        f"the five calls leaves its own step's gradient in w.grad",
                        f"{predicted:g} 只是最后一步的梯度。backward 把梯度加到 w.grad 上（AccumulateGrad 做的是 "
                        f"`w.grad += gradient`），从不覆盖：五次调用各自的梯度都留在 w.grad 里"),
            steps[0]: ("that is the first step's gradient only. Each pass of the loop builds a new graph, so "
                       "no backward fails, and each one adds its gradient to w.grad",
                       "这只是第一步的梯度。每一轮循环都新建一张图，所以每次反向都能成功，而且都把梯度加到 w.grad 上"),
        }, ("take one pass at a time: what is the derivative of (w * (i + 1)).sum() with respect "
            "to w, and what does backward do with what w.grad already holds?",
            "一轮一轮地想：(w * (i + 1)).sum() 对 w 的导数是多少？backward 会怎样处理 w.grad 里已有的值？"),
            rel_tol=0, abs_tol=1e-6)
        raise Fail("the prediction differs from what the loop really leaves in w.grad",
                   "预测和循环实际留在 w.grad 里的值不同",
                   expected=f"{real:g}", found=f"{predicted:g}", hint_en=hint_en, hint_zh=hint_zh)

    w = run_shown_code("predicted_grad_with_reset")
    real, one_step = w.grad.item(), 2 * w.item()  # each backward adds d(w * w)/dw = 2w
    check("predicted_grad_with_reset(): retain_graph=True, w.grad = None before the second of three calls",
          "predicted_grad_with_reset()：retain_graph=True，三次反向中的第二次之前 w.grad = None")
    predicted = a_number(solution.predicted_grad_with_reset(), "predicted_grad_with_reset()")
    if abs(predicted - real) > 1e-6:
        hint_en, hint_zh = hint_for(predicted, {
            3 * one_step: ("setting w.grad = None throws away what was accumulated so far; only the backward "
                           "calls after it count",
                           "w.grad = None 会把之前累加的梯度全部丢掉，只有它之后的反向才算数"),
            one_step: ("that is one backward's gradient. After the reset there are still two backward calls "
                       "on the retained graph, and the second adds to the first",
                       "这是一次反向的梯度。清空之后还有两次对保留下来的图的反向，第二次会加到第一次上"),
        }, ("retain_graph=True keeps the saved tensors, so all three calls succeed, each with the "
            "derivative of (w * w).sum(); then ask which of them are still in w.grad at the end",
            "retain_graph=True 留住了保存的张量，三次调用都会成功，每次算的都是 (w * w).sum() 的导数；"
            "再想想最后 w.grad 里还留着哪几次的"), rel_tol=0, abs_tol=1e-6)
        raise Fail("the prediction differs from what the loop really leaves in w.grad",
                   "预测和循环实际留在 w.grad 里的值不同",
                   expected=f"{real:g}", found=f"{predicted:g}", hint_en=hint_en, hint_zh=hint_zh)

    check("predicted_grad() and predicted_grad_with_reset() run no backward: they predict",
          "predicted_grad() 和 predicted_grad_with_reset() 不调用任何 backward()：它们是预测")
    with autograd_passes() as passes:
        solution.predicted_grad()
        solution.predicted_grad_with_reset()
    refuse_passes(passes, (f"the predictions ran a backward pass {times(len(passes))} to find the answer: predict it "
                           f"on paper, don't run it",
                           f"这两个预测为了得到答案跑了 {len(passes)} 次反向传播：要在纸上推算，而不是运行代码"),
                  ("a number worked out by reasoning, no backward", "推理得出的一个数，不做任何反向传播"),
                  ("return the number you predict, e.g. `return 2.5`", "直接返回你预测的数，比如 `return 2.5`"))
