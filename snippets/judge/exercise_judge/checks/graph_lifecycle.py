"""Exercises of the chapter graph-lifecycle."""

import ast
import importlib.util
import numbers
from pathlib import Path

import torch

from exercise_judge.checking import Fail, exercise, times
from exercise_judge.checks._shared import hint_for, refuse_passes
from exercise_judge.spies import TorchCalls, autograd_passes, counted

ON_PAPER = ("predict it on paper, don't run it", "要在纸上推算，而不是运行代码")
RETURN_A_NUMBER = ("delete the code, and the import of torch with it; return the number you predict, e.g. `return 2.5`",
                   "把代码连同 torch 的导入一起删掉，直接返回你预测的数，比如 `return 2.5`")
# A wrong prediction gets the hint for its mistake, not the right number: the reader predicts again.
KEPT_BACK = ("what that code leaves in w.grad (kept back, so that you predict it: read the hint)",
             "这段代码留在 w.grad 里的值（不直接给出，留给你推算：看提示）")


# The code each function of the starter file shows in its docstring (a test keeps them equal): the
# judge runs it and compares the reader's prediction with what it leaves in w.grad.
SHOWN_CODE = {
    "predicted_grad": """\
w = torch.tensor([1.0], requires_grad=True)
for i in range(5):
    (w * (i + 1)).sum().backward()
""",
    "predicted_grad_with_reset": """\
w = torch.tensor([2.0], requires_grad=True)
loss = (w * w).sum()
for i in range(3):
    if i == 1:
        w.grad = None
    loss.backward(retain_graph=True)
""",
}


def run_shown_code(function: str) -> torch.Tensor:
    """w after the code that the starter shows in the docstring of `function`, run for real."""
    namespace = {"torch": torch}
    exec(SHOWN_CODE[function], namespace)
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


def torch_imports(file: Path) -> list[tuple[int, str]]:
    """(line, statement) of each `import torch…` / `from torch… import` in the file, at any depth."""
    found = []
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        if any(name.split(".")[0] in ("torch", "functorch") for name in names):
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def what_torch_did(passes, calls) -> tuple[str, str] | None:
    """The backward passes, else the torch calls, in a few words; None when there were neither."""
    if passes:
        return counted(passes)
    if calls:
        names = list(dict.fromkeys(call.name for call in calls))
        shown = ", ".join(names[:6]) + (", …" if len(names) > 6 else "")
        return (f"{len(calls)} torch calls: {shown}", f"{len(calls)} 次 torch 调用：{shown}")
    return None


def refuse_torch(solution) -> None:
    """Fail when the reader's file imports torch, or when loading it afresh or calling its two
    functions on that fresh copy runs anything of torch: a backward pass (spies.autograd_passes,
    which also sees other threads) or any torch function or Tensor method (spies.TorchCalls, which
    sees a forward, and a backward run through the engine directly). The fresh copy defeats a
    result computed at import time or cached by the first, unrecorded call."""
    file = Path(solution.__file__)
    imports = torch_imports(file)
    if imports:
        line, statement = imports[0]
        raise Fail(f"your file imports torch (line {line}): a prediction needs none; {ON_PAPER[0]}",
                   f"你的文件导入了 torch（第 {line} 行）：预测用不到它；{ON_PAPER[1]}",
                   expected=("a file without torch: two functions that return numbers",
                             "不含 torch 的文件：两个返回数的函数"),
                   found=(f"line {line}: {statement}", f"第 {line} 行：{statement}"),
                   hint_en=RETURN_A_NUMBER[0], hint_zh=RETURN_A_NUMBER[1])

    spec = importlib.util.spec_from_file_location("solution_again", file)
    again = importlib.util.module_from_spec(spec)
    with autograd_passes() as passes, TorchCalls() as seen:
        spec.loader.exec_module(again)
    loading = what_torch_did(passes, seen.calls)
    if loading:
        raise Fail(f"loading your file ran torch ({loading[0]}): {ON_PAPER[0]}",
                   f"加载你的文件时运行了 torch（{loading[1]}）：{ON_PAPER[1]}",
                   expected=("nothing of torch runs when the file is loaded", "加载文件时不运行任何 torch 代码"),
                   found=loading, hint_en=RETURN_A_NUMBER[0], hint_zh=RETURN_A_NUMBER[1])

    with autograd_passes() as passes, TorchCalls() as seen:
        again.predicted_grad()
        again.predicted_grad_with_reset()
    refuse_passes(passes, (f"the predictions ran a backward pass {times(len(passes))} to find the answer: {ON_PAPER[0]}",
                           f"这两个预测为了得到答案跑了 {len(passes)} 次反向传播：{ON_PAPER[1]}"),
                  ("a number worked out by reasoning, no backward", "推理得出的一个数，不做任何反向传播"),
                  RETURN_A_NUMBER)
    called = what_torch_did([], seen.calls)
    if called:
        raise Fail(f"the predictions called torch ({called[0]}): {ON_PAPER[0]}",
                   f"这两个预测调用了 torch（{called[1]}）：{ON_PAPER[1]}",
                   expected=("a number worked out by reasoning, no torch", "推理得出的一个数，不用 torch"),
                   found=called, hint_en=RETURN_A_NUMBER[0], hint_zh=RETURN_A_NUMBER[1])


@exercise("graph-lifecycle/predict-grad",
          en="predict w.grad after several backward calls, without running them",
          zh="不运行代码，预测调用几次 `backward()` 之后的 w.grad")
def predict_grad(solution, check):
    real, steps = run_shown_code("predicted_grad").grad.item(), [float(i + 1) for i in range(5)]  # step i adds i + 1
    check("predicted_grad(): w.grad after five backward calls in a loop",
          "predicted_grad()：循环里调用五次 `backward()` 之后的 w.grad")
    predicted = a_number(solution.predicted_grad(), "predicted_grad()")
    if abs(predicted - real) > 1e-6:
        hint_en, hint_zh = hint_for(predicted, {
            steps[-1]: (f"{predicted:g} is the gradient of the last step alone. backward adds its gradient to "
                        f"w.grad (AccumulateGrad does `w.grad += gradient`), it never replaces it: every one of "
                        f"the five calls leaves its own step's gradient in w.grad",
                        f"{predicted:g} 只是最后一步的梯度。backward 把梯度加到 w.grad 上（AccumulateGrad 做的是 "
                        f"`w.grad += 梯度`），从不覆盖：五次调用各自的梯度都留在 w.grad 里"),
            steps[0]: ("that is the first step's gradient only. Each pass of the loop builds a new graph, so "
                       "no backward fails, and each one adds its gradient to w.grad",
                       "这只是第一步的梯度。每一轮循环都新建一张图，所以每次 `backward()` 都能成功，而且都把梯度加到 w.grad 上"),
        }, ("take one pass at a time: what is the derivative of (w * (i + 1)).sum() with respect "
            "to w, and what does backward do with what w.grad already holds?",
            "一轮一轮地想：(w * (i + 1)).sum() 对 w 的导数是多少？`backward()` 会怎样处理 w.grad 里已有的值？"),
            rel_tol=0, abs_tol=1e-6)
        raise Fail("the prediction differs from what the loop really leaves in w.grad",
                   "预测和循环实际留在 w.grad 里的值不同",
                   expected=KEPT_BACK, found=f"{predicted:g}", hint_en=hint_en, hint_zh=hint_zh)

    w = run_shown_code("predicted_grad_with_reset")
    real, one_step = w.grad.item(), 2 * w.item()  # each backward adds d(w * w)/dw = 2w
    check("predicted_grad_with_reset(): retain_graph=True, w.grad = None before the second of three calls",
          "predicted_grad_with_reset()：retain_graph=True，三次 `backward()` 中的第二次之前 w.grad = None")
    predicted = a_number(solution.predicted_grad_with_reset(), "predicted_grad_with_reset()")
    if abs(predicted - real) > 1e-6:
        hint_en, hint_zh = hint_for(predicted, {
            3 * one_step: ("setting w.grad = None throws away what was accumulated so far; only the backward "
                           "calls after it count",
                           "w.grad = None 会把之前累加的梯度全部丢掉，只有它之后的几次 `backward()` 才算数"),
            one_step: ("that is one backward's gradient. After the reset there are still two backward calls "
                       "on the retained graph, and the second adds to the first",
                       "这是一次 `backward()` 的梯度。清空之后还要对保留下来的图调用两次 `backward()`，"
                       "第二次会加到第一次上"),
        }, ("retain_graph=True keeps the saved tensors, so all three calls succeed, each with the "
            "derivative of (w * w).sum(); then ask which of them are still in w.grad at the end",
            "retain_graph=True 留住了保存的张量，三次调用都会成功，每次算的都是 (w * w).sum() 的导数；"
            "再想想最后 w.grad 里还留着哪几次的"), rel_tol=0, abs_tol=1e-6)
        raise Fail("the prediction differs from what the loop really leaves in w.grad",
                   "预测和循环实际留在 w.grad 里的值不同",
                   expected=KEPT_BACK, found=f"{predicted:g}", hint_en=hint_en, hint_zh=hint_zh)

    check("predicted_grad() and predicted_grad_with_reset() use no torch: the file neither imports it nor runs it",
          "predicted_grad() 和 predicted_grad_with_reset() 不用 torch：文件既不导入它，也不运行它")
    refuse_torch(solution)
