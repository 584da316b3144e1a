"""The verdict a reader reads: what each check checked, what it expected and what it found, in
English or in Chinese, from what the child process reported (see ``runner``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from exercise_judge.checking import Exercise
from exercise_judge.limits import OUTPUT_LIMIT
from exercise_judge.runner import STARTUP_SECONDS, Run

WORDS = {
    "en": {
        "exercise": "Exercise {id}: {title}",
        "passed": "✔ {check}",
        "failed": "✘ {check}",
        "expected": "  expected: {text}",
        "found": "  found:    {text}",
        "hint": "  hint: {text}",
        "verdict-pass": "Passed: all {n} checks hold.",
        "verdict-fail": "Not yet: check {n} failed (the judge stops at the first failure). Fix it, then run the judge again.",
        "raised": "your code raised {error}{where}",
        "died": "The process running your code ended abruptly (exit status {status}), before any check could report.",
        "where": " at {file} line {line}: {code}",
        "timeout": "Stopped after {seconds} s: the solution did not finish (an endless loop, or far too much work).",
        "slow-start": "Stopped: Python and torch were still starting after {startup} s, before your code ran. "
        "The machine is too busy; run the judge again when it is quieter.",
        "flood": "Stopped: the solution printed more than {limit} characters. Remove the prints in loops.",
        "missing": "{file} has no `{name}`: keep the names of the starter file.",
        "no-file": "There is no file {file}.",
        "unknown": "There is no exercise {id}. `python -m exercise_judge --list` lists them.",
        "no-torch": "The judge needs torch {lowest} or newer, below {above}, and this Python ({python}) has no "
        "torch. Install it as https://pytorch.org/get-started/locally/ says, then run the judge again.",
        "torch-range": "This Python ({python}) has torch {found}; the judge supports torch {lowest} or newer, below "
        "{above}, the releases its checks are proven on. Install a torch in that range "
        "(https://pytorch.org/get-started/locally/ for the newest, "
        "https://pytorch.org/get-started/previous-versions/ for older ones), then run the judge again.",
        "printed": "What your code printed (first lines):",
    },
    "zh": {
        "exercise": "练习 {id}：{title}",
        "passed": "✔ {check}",
        "failed": "✘ {check}",
        "expected": "  应当：{text}",
        "found": "  实际：{text}",
        "hint": "  提示：{text}",
        "verdict-pass": "通过：{n} 项检查全部成立。",
        "verdict-fail": "还没通过：第 {n} 项检查失败（评测在第一处失败就停下）。改好它，再运行一次评测。",
        "raised": "你的代码抛出了 {error}{where}",
        "died": "运行你代码的进程意外结束（退出码 {status}），没有任何检查来得及报告。",
        "where": "，位置 {file} 第 {line} 行：{code}",
        "timeout": "{seconds} 秒后仍未结束，已停止：可能是死循环，或者计算量太大。",
        "slow-start": "已停止：过了 {startup} 秒，Python 和 torch 还没启动完，你的代码还没开始运行。"
        "机器太忙了，等它空闲些再运行一次评测。",
        "flood": "已停止：输出超过了 {limit} 个字符。去掉循环里的 print。",
        "missing": "{file} 里没有 `{name}`：请保留起始文件里的名字。",
        "no-file": "找不到文件 {file}。",
        "unknown": "没有名为 {id} 的练习。`python -m exercise_judge --list` 会列出全部练习。",
        "no-torch": "评测需要 {lowest} 及以上、低于 {above} 的 torch，而当前的 Python（{python}）里没有安装 torch。"
        "请按 https://pytorch.org/get-started/locally/ 的说明安装，然后再运行评测。",
        "torch-range": "当前的 Python（{python}）里装的是 torch {found}，而评测只支持 {lowest} 及以上、低于 {above} 的 "
        "torch：它的检查只在这些版本上验证过。请安装这个范围内的 torch（最新版见 "
        "https://pytorch.org/get-started/locally/，旧版本见 "
        "https://pytorch.org/get-started/previous-versions/），然后再运行评测。",
        "printed": "你的代码打印了（前几行）：",
    },
}
LANGUAGES = tuple(WORDS)


@dataclass
class Verdict:
    """The judge's answer: `passed` when every check held; `lines`, the report in the language asked for."""

    exercise: str  # the exercise's id, <chapter>/<name>
    passed: bool
    lines: list[str]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def refused(exercise_id: str, language: str, reason: str, **names) -> Verdict:
    """A verdict given before anything ran: "unknown" exercise, "no-file", "no-torch" or "torch-range"."""
    return Verdict(exercise_id, False, [WORDS[language][reason].format(**names)])


def report(exercise: Exercise, file: Path, run: Run, language: str, timeout: float) -> Verdict:
    say = WORDS[language]
    lines = [say["exercise"].format(id=exercise.id, title=exercise.title[language])]
    if run.stopped:
        stopped = say[run.stopped].format(seconds=int(timeout), limit=OUTPUT_LIMIT, startup=STARTUP_SECONDS)
        return Verdict(exercise.id, False, lines + [stopped] + _printed(run.output, say))
    if run.checks is None:
        return Verdict(exercise.id, False, lines + [say["died"].format(status=run.status)] + _printed(run.output, say))
    for item in run.checks:
        lines += _check_lines(item, file, language)
    passed = all(item["ok"] for item in run.checks)
    n = len(run.checks)
    lines.append(say["verdict-pass"].format(n=n) if passed else say["verdict-fail"].format(n=n))
    return Verdict(exercise.id, passed, lines + ([] if passed else _printed(run.output, say)))


def _check_lines(item: dict, file: Path, language: str) -> list[str]:
    say = WORDS[language]
    if item["ok"]:
        return [say["passed"].format(check=item["check"][language])]
    lines = [say["failed"].format(check=item["check"][language])]
    if "missing" in item:
        return lines + ["  " + say["missing"].format(file=file.name, name=item["missing"])]
    if "error" in item:
        where = say["where"].format(**item["where"]) if item.get("where") else ""
        return lines + ["  " + say["raised"].format(error=item["error"], where=where)]
    lines.append("  " + item["text"][language])
    for part in ("expected", "found", "hint"):
        if item[part][language]:
            lines.append(say[part].format(text=item[part][language]))
    return lines


def _printed(output: str, say: dict) -> list[str]:
    shown = [line for line in output.splitlines() if line.strip()][:10]
    return [say["printed"], *("  | " + line[:200] for line in shown)] if shown else []
