"""Exercises of the chapter graph-lifecycle."""

import ast
import contextlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import torch

from exercise_judge import spies
from exercise_judge.checking import Fail, exercise, times
from exercise_judge.checks._shared import hint_for, refuse_passes
from exercise_judge.spies import TorchCalls, autograd_passes

ON_PAPER = ("predict it on paper, don't run it", "要在纸上推算，而不是运行代码")
RETURN_A_NUMBER = (
    "delete the code, and the import of torch with it; return the number you predict, e.g. `return 2.5`",
    "把代码连同 torch 的导入一起删掉，直接返回你预测的数，比如 `return 2.5`",
)
# A wrong prediction gets the hint for its mistake, not the right number: the reader predicts again.
KEPT_BACK = (
    "what that code leaves in w.grad (kept back, so that you predict it: read the hint)",
    "这段代码留在 w.grad 里的值（不直接给出，留给你推算：看提示）",
)


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
    _own[0] += BACKWARD_CALLS[function]
    return namespace["w"]


# The backward passes each shown code runs: the judge's own, which continuous_count() allows.
BACKWARD_CALLS = {"predicted_grad": 5, "predicted_grad_with_reset": 3}


def a_number(value, call):
    """The reader's prediction as a finite float, or a Fail that says what came back instead."""
    if type(value) in (int, float):  # not a subclass or a number-like object: float() would run its code unwatched
        number = float(value) if type(value) is float or abs(value) < 2**1000 else math.inf
        if math.isfinite(number):
            return number
        raise Fail(
            f"{call} must return a finite number, your prediction",
            f"{call} 应当返回一个有限的数，也就是你的预测",
            expected=("a finite float such as 2.5", "一个有限的 float，比如 2.5"),
            found=repr(value)[:40],
            hint_en="w.grad holds a finite number here: write the value you predict, e.g. `return 2.5`",
            hint_zh="这里的 w.grad 是一个有限的数：直接写出你预测的值，比如 `return 2.5`",
        )
    if isinstance(value, torch.Tensor):
        found = (f"a tensor of shape {list(value.shape)}", f"一个形状为 {list(value.shape)} 的张量")
        hint_en = "write the value you predict, e.g. `return 2.5`; do not run the loop to get a tensor"
        hint_zh = "直接写出你预测的值，比如 `return 2.5`；不要运行循环去拿一个张量"
    else:
        found = (f"{value!r} (a {type(value).__name__})", f"{value!r}（{type(value).__name__} 类型）")
        hint_en = "end the function with `return` and the value you predict, e.g. `return 2.5`"
        hint_zh = "在函数末尾用 `return` 返回你预测的值，比如 `return 2.5`"
    raise Fail(
        f"{call} must return a number, your prediction",
        f"{call} 应当返回一个数，也就是你的预测",
        expected=("a float such as 2.5", "一个 float，比如 2.5"),
        found=found,
        hint_en=hint_en,
        hint_zh=hint_zh,
    )


def differs(predicted: float, real: float) -> bool:
    """Whether a prediction misses the real value; a NaN misses everything."""
    return not math.isclose(predicted, real, rel_tol=0, abs_tol=1e-6)


# The bytes of each reader's file as the judge loaded it (watched_load): the checks read these, not the
# file, which the reader's code may have rewritten since.
LOADED: dict[str, bytes] = {}


def loaded_source(file: Path) -> bytes:
    """The reader's file as the judge loaded it (as it is now, if watched_load did not load it)."""
    return LOADED.get(str(file)) or file.read_bytes()


def torch_imports(file: Path) -> list[tuple[int, str]]:
    """(line, statement) of each `import torch…` / `from torch… import` in the file, at any depth."""
    found = []
    for node in ast.walk(ast.parse(loaded_source(file).decode("utf-8"))):
        names = (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and not node.level
            else []
        )
        if any(name.split(".")[0] in ("torch", "functorch") for name in names):
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


# Audit events by which Python code starts another process (docs.python.org, "Audit events table").
STARTS_A_PROCESS = frozenset(
    {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.startfile"}
)
_watching: list[list[str]] = []  # one list per active watch(): the process events refused in it
_hook: list = []  # the audit hook, once installed
_hooks: list[list[str]] = []  # one list per active watch(): the sys.addaudithook events refused in it
# The engine's graph-task number before the reader's file loads, and the passes the judge has run
# itself since (its counting passes and the shown code): see continuous_count().
_start: list[int] = []
_own = [0]
# The environment as the judge found it before it loaded the reader's file, for the new interpreter.
ENVIRONMENT = dict(os.environ)


def _refuse_processes(event: str, args) -> None:
    """The audit hook (installed once, as audit hooks cannot be removed): while a watch() is active,
    record and refuse any new process, whose torch the spies of this process would not see."""
    if _watching and event in STARTS_A_PROCESS:
        for started in _watching:
            started.append(event)
        raise RuntimeError(f"the judge refuses {event} while your predictions run")
    if _hooks and event == "sys.addaudithook":  # a hook of the reader's would run between the watches
        for added in _hooks:
            added.append(event)
        raise RuntimeError("the judge refuses sys.addaudithook while your file runs")  # Python drops the hook


def graph_task() -> int:
    """The number of a counting pass run now: every backward pass the engine ran before took a smaller one."""
    if spies._counter is None:
        spies._counter = spies._Counter()
    return spies._counter()


@contextlib.contextmanager
def watch():
    """What the reader's code does inside the block: (backward passes, torch calls, processes started)."""
    if not _hook:
        sys.addaudithook(_refuse_processes)
        _hook.append(_refuse_processes)
    started: list[str] = []
    added: list[str] = []
    with autograd_passes() as passes, TorchCalls() as seen:
        _watching.append(started)
        _hooks.append(added)
        try:
            yield passes, seen.calls, started
        finally:
            _watching.remove(started)
            _hooks.remove(added)
    _own[0] += 2  # the two counting passes of autograd_passes()
    if added:
        raise Fail(
            "your file installed an audit hook (sys.addaudithook), which would run code between the "
            f"judge's watches: {ON_PAPER[0]}",
            f"你的文件安装了审计钩子（sys.addaudithook），它会在评测的几次监视之间运行代码：{ON_PAPER[1]}",
            expected=("two functions that return numbers, no hooks", "两个返回数的函数，不装任何钩子"),
            found=("sys.addaudithook", "sys.addaudithook"),
            hint_en=RETURN_A_NUMBER[0],
            hint_zh=RETURN_A_NUMBER[1],
        )


def continuous_count() -> None:
    """Fail when the engine ran backward passes since before the load that the judge did not run itself:
    the watches see only their own windows, and torch run between them (from a hook, a callback or a
    thread of the reader's file) still runs passes."""
    if not _start:
        return
    extra = graph_task() - _start[0] - 1 - _own[0]
    _own[0] += 1
    if extra > 0:
        raise Fail(
            f"{extra} backward passes ran between the load of your file and the verdict that the judge "
            f"did not run: {ON_PAPER[0]}",
            f"从加载你的文件到给出结论之间，有 {extra} 次反向传播不是评测自己跑的：{ON_PAPER[1]}",
            expected=("a number worked out by reasoning, no backward", "推理得出的一个数，不做任何反向传播"),
            found=(f"{extra} backward passes", f"{extra} 次反向传播"),
            hint_en=RETURN_A_NUMBER[0],
            hint_zh=RETURN_A_NUMBER[1],
        )


def refuse_what_ran(passes, calls, started, when: tuple[str, str]) -> None:
    """Fail when a watch() saw a new process, a backward pass or a torch call; `when` names the step."""
    if started:
        events = ", ".join(dict.fromkeys(started))
        raise Fail(
            f"{when[0]} started another process ({events}) to get the answer: {ON_PAPER[0]}",
            f"{when[1]}启动了另一个进程（{events}）来得到答案：{ON_PAPER[1]}",
            expected=(
                "a number worked out by reasoning, in this process, no other program",
                "推理得出的一个数，就在本进程里，不启动别的程序",
            ),
            found=(events, events),
            hint_en=RETURN_A_NUMBER[0],
            hint_zh=RETURN_A_NUMBER[1],
        )
    refuse_passes(
        passes,
        (
            f"{when[0]} ran a backward pass {times(len(passes))} to find the answer: {ON_PAPER[0]}",
            f"{when[1]}为了得到答案跑了 {len(passes)} 次反向传播：{ON_PAPER[1]}",
        ),
        ("a number worked out by reasoning, no backward", "推理得出的一个数，不做任何反向传播"),
        RETURN_A_NUMBER,
    )
    if calls:
        names = list(dict.fromkeys(call.name for call in calls))
        shown = ", ".join(names[:6]) + (", …" if len(names) > 6 else "")
        raise Fail(
            f"{when[0]} called torch ({len(calls)} torch calls: {shown}): {ON_PAPER[0]}",
            f"{when[1]}调用了 torch（{len(calls)} 次 torch 调用：{shown}）：{ON_PAPER[1]}",
            expected=("a number worked out by reasoning, no torch", "推理得出的一个数，不用 torch"),
            found=(f"{len(calls)} torch calls: {shown}", f"{len(calls)} 次 torch 调用：{shown}"),
            hint_en=RETURN_A_NUMBER[0],
            hint_zh=RETURN_A_NUMBER[1],
        )


@contextlib.contextmanager
def watched_load(file: Path):
    """The judge's first load of the reader's file, watched like the predictions: a number computed
    then with torch or another process could be kept anywhere, even outside the process. Keeps the
    file's bytes: the new interpreter of refuse_torch runs these."""
    LOADED[str(file)] = file.read_bytes()
    _start[:], _own[0] = [graph_task()], 0
    with watch() as (passes, calls, started):
        try:
            yield
        except Exception:
            if not started:  # else the error is the refusal, which the verdict below explains
                raise
    if passes or calls or started:
        refuse_torch_imports(file)  # the likeliest cause, and the plainest verdict
    refuse_what_ran(passes, calls, started, ("loading your file", "加载你的文件时"))


def prediction(solution, function: str) -> float:
    """solution.<function>(), watched: its number, or a Fail that says what it ran or returned."""
    with watch() as (passes, calls, started):
        try:
            value = getattr(solution, function)()
        except Exception:
            if not started:  # else the error is the refusal, which the verdict below explains
                raise
    refuse_what_ran(passes, calls, started, ("the predictions", "这两个预测"))
    return a_number(value, f"{function}()")


def refuse_torch_imports(file: Path) -> None:
    """Fail when the reader's file has an `import torch…` statement."""
    imports = torch_imports(file)
    if imports:
        line, statement = imports[0]
        raise Fail(
            f"your file imports torch (line {line}): a prediction needs none; {ON_PAPER[0]}",
            f"你的文件导入了 torch（第 {line} 行）：预测用不到它；{ON_PAPER[1]}",
            expected=("a file without torch: two functions that return numbers", "不含 torch 的文件：两个返回数的函数"),
            found=(f"line {line}: {statement}", f"第 {line} 行：{statement}"),
            hint_en=RETURN_A_NUMBER[0],
            hint_zh=RETURN_A_NUMBER[1],
        )


# Runs the reader's file, as the judge loaded it (its bytes on stdin), in a new interpreter where torch
# cannot be imported, no process can be started and no file opened but Python's own (not even the
# reader's, which may have been rewritten since), calls the two functions and prints what they
# returned (or what failed) as JSON on its last line.
WITHOUT_TORCH = r"""
import json, os, sys, types
source = sys.stdin.buffer.read()
STARTS = set(json.loads(sys.argv[2]))
tried = []
def refuse(name):
    if name.split(".")[0] in ("torch", "functorch"):
        tried.append(f"import {name}")
        raise ImportError(f"torch cannot be imported here: {name}", name=name)
class Refuse:  # importlib.import_module raises no audit event for the module it is asked for
    @staticmethod
    def find_spec(name, path=None, target=None):
        refuse(name)
OWN = [os.path.realpath(root) + os.sep for root in {sys.prefix, sys.base_prefix, sys.exec_prefix}]
def hook(event, args):
    if event == "import":  # an import statement, also inside a torch that got past Refuse
        refuse(str(args[0]))
    if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):  # a number left on disk
        path = os.path.realpath(os.fsdecode(args[0]))
        if not path.startswith(tuple(OWN)):
            tried.append(f"open {path}")
            raise PermissionError(f"no file but the Python's own here: {path}")
    if event in STARTS:
        tried.append(event)
        raise RuntimeError(f"no {event} here")
sys.meta_path.insert(0, Refuse)
file = os.path.realpath(sys.argv[1])
sys.addaudithook(hook)
sys.path.insert(0, os.path.dirname(file))
result, step = {}, "load"
try:
    solution = sys.modules["solution"] = types.ModuleType("solution")
    solution.__file__ = file
    exec(compile(source, file, "exec"), solution.__dict__)
    for step in ("predicted_grad", "predicted_grad_with_reset"):
        result[step] = float(getattr(solution, step)())
except BaseException as error:
    result["failed"] = {"step": step, "error": f"{type(error).__name__}: {error}", "tried": tried}
print("\n" + json.dumps(result))
"""


def numbers_without_torch(file: Path, source: bytes) -> dict:
    """What WITHOUT_TORCH prints for `source`, the reader's file: the two numbers, or "failed"."""
    try:
        printed = subprocess.run(
            [sys.executable, "-I", "-B", "-c", WITHOUT_TORCH, str(file), json.dumps(sorted(STARTS_A_PROCESS))],
            input=source,
            capture_output=True,
            cwd=file.parent,
            env=ENVIRONMENT,
            timeout=30,
        ).stdout.decode("utf-8", errors="replace")
        return json.loads(printed.rstrip().rsplit("\n", 1)[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError) as error:
        return {"failed": {"step": "load", "error": f"{type(error).__name__}", "tried": []}}


def refuse_torch(solution, answers: dict[str, float]) -> None:
    """Fail when the reader's numbers need torch, another process or another file: the same file in a
    new interpreter (WITHOUT_TORCH, with the environment from before the reader's file was loaded)
    must give the same numbers. The load and the calls in this process are watched (watched_load,
    prediction); this defeats what they cannot see: numbers that torch, run some other way, left in
    builtins or in a file."""
    file = Path(solution.__file__)
    refuse_torch_imports(file)
    result = numbers_without_torch(file, loaded_source(file))
    failed = result.get("failed")
    if failed:
        where = "loading it" if failed["step"] == "load" else f"{failed['step']}()"
        where_zh = "加载它时" if failed["step"] == "load" else f"{failed['step']}()"
        tried = failed["tried"][-1] if failed["tried"] else failed["error"]  # the refusal it stopped at
        raise Fail(
            f"your numbers do not come from your file alone: in a new Python that may not import torch, "
            f"start a process or open another file, {where} stopped at: {tried}; {ON_PAPER[0]}",
            f"你的数不是单靠这个文件得出的：在一个不许导入 torch、不许启动进程、也不许打开别的文件的新 Python 里，"
            f"{where_zh}停在了：{tried}；{ON_PAPER[1]}",
            expected=(
                "two numbers that need neither torch nor another process or file",
                "两个既不靠 torch、也不靠别的进程或文件就能给出的数",
            ),
            found=(failed["error"], failed["error"]),
            hint_en=RETURN_A_NUMBER[0],
            hint_zh=RETURN_A_NUMBER[1],
        )
    differ = {
        function: (answers[function], result[function])
        for function in answers
        if differs(answers[function], result[function])
    }
    if differ:
        shown = ", ".join(f"{function}(): {here:g} here, {there:g} there" for function, (here, there) in differ.items())
        shown_zh = "，".join(
            f"{function}()：这里 {here:g}，那里 {there:g}" for function, (here, there) in differ.items()
        )
        raise Fail(
            f"your file gives other numbers in a new Python where torch cannot run ({shown}): the "
            f"numbers must not come from torch; {ON_PAPER[0]}",
            f"在一个不能运行 torch 的新 Python 里，你的文件给出的数不一样（{shown_zh}）：这两个数不能来自 torch；"
            f"{ON_PAPER[1]}",
            expected=("the same numbers, worked out by reasoning", "同样的数，由推理得出"),
            found=(shown, shown_zh),
            hint_en=RETURN_A_NUMBER[0],
            hint_zh=RETURN_A_NUMBER[1],
        )


@exercise(
    "graph-lifecycle/predict-grad",
    en="predict w.grad after several backward calls, without running them",
    zh="不运行代码，预测调用几次 `backward()` 之后的 w.grad",
)
def predict_grad(solution, check):
    check("your file imports no torch", "你的文件不导入 torch")
    refuse_torch_imports(Path(solution.__file__))
    check(
        "predicted_grad(): w.grad after five backward calls in a loop",
        "predicted_grad()：循环里调用五次 `backward()` 之后的 w.grad",
    )
    predicted = first = prediction(solution, "predicted_grad")
    # The real values are computed only now, after the prediction: no frame holds them while it runs.
    real, steps = run_shown_code("predicted_grad").grad.item(), [float(i + 1) for i in range(5)]  # step i adds i + 1
    if differs(predicted, real):
        hint_en, hint_zh = hint_for(
            predicted,
            {
                steps[-1]: (
                    f"{predicted:g} is the gradient of the last step alone. backward adds its gradient to "
                    f"w.grad (AccumulateGrad does `w.grad += gradient`), it never replaces it: every one of "
                    f"the five calls leaves its own step's gradient in w.grad",
                    f"{predicted:g} 只是最后一步的梯度。backward 把梯度加到 w.grad 上（AccumulateGrad 做的是 "
                    f"`w.grad += 梯度`），从不覆盖：五次调用各自的梯度都留在 w.grad 里",
                ),
                steps[0]: (
                    "that is the first step's gradient only. Each pass of the loop builds a new graph, so "
                    "no backward fails, and each one adds its gradient to w.grad",
                    "这只是第一步的梯度。每一轮循环都新建一张图，所以每次 `backward()` 都能成功，而且都把梯度加到 w.grad 上",
                ),
            },
            (
                "take one pass at a time: what is the derivative of (w * (i + 1)).sum() with respect "
                "to w, and what does backward do with what w.grad already holds?",
                "一轮一轮地想：(w * (i + 1)).sum() 对 w 的导数是多少？`backward()` 会怎样处理 w.grad 里已有的值？",
            ),
            rel_tol=0,
            abs_tol=1e-6,
        )
        raise Fail(
            "the prediction differs from what the loop really leaves in w.grad",
            "预测和循环实际留在 w.grad 里的值不同",
            expected=KEPT_BACK,
            found=f"{predicted:g}",
            hint_en=hint_en,
            hint_zh=hint_zh,
        )

    check(
        "predicted_grad_with_reset(): retain_graph=True, w.grad = None before the second of three calls",
        "predicted_grad_with_reset()：retain_graph=True，三次 `backward()` 中的第二次之前 w.grad = None",
    )
    predicted = prediction(solution, "predicted_grad_with_reset")
    w = run_shown_code("predicted_grad_with_reset")
    real, one_step = w.grad.item(), 2 * w.item()  # each backward adds d(w * w)/dw = 2w
    if differs(predicted, real):
        hint_en, hint_zh = hint_for(
            predicted,
            {
                3 * one_step: (
                    "setting w.grad = None throws away what was accumulated so far; only the backward "
                    "calls after it count",
                    "w.grad = None 会把之前累加的梯度全部丢掉，只有它之后的几次 `backward()` 才算数",
                ),
                one_step: (
                    "that is one backward's gradient. After the reset there are still two backward calls "
                    "on the retained graph, and the second adds to the first",
                    "这是一次 `backward()` 的梯度。清空之后还要对保留下来的图调用两次 `backward()`，"
                    "第二次会加到第一次上",
                ),
            },
            (
                "retain_graph=True keeps the saved tensors, so all three calls succeed, each with the "
                "derivative of (w * w).sum(); then ask which of them are still in w.grad at the end",
                "retain_graph=True 留住了保存的张量，三次调用都会成功，每次算的都是 (w * w).sum() 的导数；"
                "再想想最后 w.grad 里还留着哪几次的",
            ),
            rel_tol=0,
            abs_tol=1e-6,
        )
        raise Fail(
            "the prediction differs from what the loop really leaves in w.grad",
            "预测和循环实际留在 w.grad 里的值不同",
            expected=KEPT_BACK,
            found=f"{predicted:g}",
            hint_en=hint_en,
            hint_zh=hint_zh,
        )

    check(
        "predicted_grad() and predicted_grad_with_reset() use no torch: the file neither imports it nor runs it",
        "predicted_grad() 和 predicted_grad_with_reset() 不用 torch：文件既不导入它，也不运行它",
    )
    refuse_torch(solution, {"predicted_grad": first, "predicted_grad_with_reset": predicted})
    continuous_count()  # after the new Python has read whatever the file left behind


predict_grad.loading = watched_load  # exercise_judge.child loads the reader's file in it


def confirm(file: Path, source: bytes) -> dict | None:
    """Run by exercise_judge.judge in its own process, which never ran the reader's file, once the child
    reported that every check held: loaded into the child, the file could have rewritten those checks
    (`differs`, say). Here the file as the child loaded it (`source`) runs in WITHOUT_TORCH, and its two
    numbers are compared with what the shown code, run here, leaves in w.grad. None when they agree;
    otherwise the failed check, as the child reports one."""
    result = numbers_without_torch(file, source)
    real = {function: run_shown_code(function).grad.item() for function in SHOWN_CODE}
    failed = result.get("failed")
    if failed:
        found = (failed["error"], failed["error"])
    elif any(differs(result[function], value) for function, value in real.items()):
        found = (
            ", ".join(f"{function}(): {result[function]:g}" for function in real),
            "，".join(f"{function}()：{result[function]:g}" for function in real),
        )
    else:
        return None
    return {
        "check": {
            "en": "the judge's own process, which never ran your file, compares your numbers again",
            "zh": "评测自己的进程（它从没运行过你的文件）再比较一次你的数",
        },
        "ok": False,
        "text": {
            "en": "run again outside the process your file was loaded into, your file does not give what the "
            "shown code leaves in w.grad: the checks above ran in that process, where your file can "
            f"change them; {ON_PAPER[0]}",
            "zh": "在加载你文件的那个进程之外再运行一次，你的文件给出的数和这段代码留在 w.grad 里的值不同：上面的检查"
            f"是在那个进程里做的，你的文件在那里能改动它们；{ON_PAPER[1]}",
        },
        "expected": {"en": KEPT_BACK[0], "zh": KEPT_BACK[1]},
        "found": {"en": found[0], "zh": found[1]},
        "hint": {
            "en": "leave the judge alone; return the number you predict, e.g. `return 2.5`",
            "zh": "别去改评测；直接返回你预测的数，比如 `return 2.5`",
        },
    }


predict_grad.confirm = confirm  # exercise_judge.judge calls it in its own process
