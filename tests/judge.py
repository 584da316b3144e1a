"""Judge a reader's solution to one of the book's exercises: `nox -s judge -- EXERCISE FILE [--lang zh]`.

    nox -s judge -- --list
    nox -s judge -- gradient-accumulation/micro-batches my_solution.py
    nox -s judge -- gradient-accumulation/micro-batches my_solution.py --lang zh

The reader's file runs in a child process, so that a solution that hangs, floods the terminal
or crashes is stopped and reported in plain words, never as a bare traceback. The checks live in
tests/exercises/<chapter>.py; each says what it checked, what it expected and what it found, in
English and in Chinese. The checks of the method (was the batch really split, was backward called)
use the instruments in tests/exercises/_spies.py.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

# Run as a script, this module is __main__; the checks import it as `judge`: one module, one registry.
sys.modules.setdefault("judge", sys.modules[__name__])

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
TIMEOUT_SECONDS = 60
OUTPUT_LIMIT = 20_000  # characters a solution may print before it is stopped

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
        "load": "loading {file}",
        "timeout": "Stopped after {seconds} s: the solution did not finish (an endless loop, or far too much work).",
        "flood": "Stopped: the solution printed more than {limit} characters. Remove the prints in loops.",
        "missing": "{file} has no `{name}`: keep the names of the starter file.",
        "no-file": "There is no file {file}.",
        "unknown": "There is no exercise {id}. `nox -s judge -- --list` lists them.",
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
        "load": "加载 {file}",
        "timeout": "{seconds} 秒后仍未结束，已停止：可能是死循环，或者计算量太大。",
        "flood": "已停止：输出超过了 {limit} 个字符。去掉循环里的 print。",
        "missing": "{file} 里没有 `{name}`：请保留起始文件里的名字。",
        "no-file": "找不到文件 {file}。",
        "unknown": "没有名为 {id} 的练习。`nox -s judge -- --list` 会列出全部练习。",
        "printed": "你的代码打印了（前几行）：",
    },
}


class Fail(Exception):
    """A check that does not hold: what was expected and what was found, in both languages."""

    def __init__(self, en: str, zh: str, *, expected: str | tuple = "", found: str | tuple = "",
                 hint_en: str = "", hint_zh: str = ""):
        super().__init__(en)
        self.text = {"en": en, "zh": zh}
        # expected/found: one text for both languages (a number, a shape), or (English, Chinese)
        self.expected, self.found = (_both(value) for value in (expected, found))
        self.hint = {"en": hint_en, "zh": hint_zh}


def _both(value: str | tuple) -> dict:
    en, zh = value if isinstance(value, tuple) else (value, value)
    return {"en": en, "zh": zh}


def times(n: int) -> str:
    """'once', 'twice', '3 times': a count in an English verdict."""
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


@dataclass
class Check:
    en: str
    zh: str


@dataclass
class Exercise:
    id: str  # <chapter>/<name>
    title: dict
    run: callable  # run(solution_module, check) -> None; calls check(en, zh) before each check
    files: dict = field(default_factory=dict)

    @property
    def chapter(self) -> str:
        return self.id.split("/")[0]

    @property
    def starter(self) -> Path:
        return ROOT / "snippets" / self.chapter / f"exercise-{self.id.split('/')[1]}.py"

    @property
    def solution(self) -> Path:
        return self.starter.with_name(self.starter.stem + "-solution.py")


EXERCISES: dict[str, Exercise] = {}


def exercise(id: str, *, en: str, zh: str):
    """Register the checks of one exercise (used in tests/exercises/<chapter>.py)."""
    def register(run):
        EXERCISES[id] = Exercise(id, {"en": en, "zh": zh}, run)
        return run
    return register


def load_exercises() -> dict[str, Exercise]:
    sys.path.insert(0, str(TESTS))
    for path in sorted((TESTS / "exercises").glob("[!_]*.py")):  # _spies.py is a helper, not a chapter
        spec = importlib.util.spec_from_file_location(f"exercises_{path.stem}", path)
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    return EXERCISES


# --- the child process: load the reader's file, run the checks, write the result as JSON ---

def _where(error: BaseException, file: Path) -> dict:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename).resolve() == file.resolve()]
    if not frames:
        return {}
    return {"file": file.name, "line": frames[-1].lineno, "code": (frames[-1].line or "").strip()}


def run_child(exercise_id: str, file: Path, result_path: Path) -> None:
    # The parent tells the child a one-time token on stdin, and believes only a result that carries it:
    # a reader's file that writes the result file itself (its path is in sys.argv) does not know it.
    # A hardening, not a lock: code running in this process could still dig the token out of this frame.
    token = sys.stdin.readline().strip()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    exercise = load_exercises()[exercise_id]
    from exercises import _spies
    _spies.install()  # before the reader's file binds its own names to torch.autograd's functions
    checks = []
    result = {"checks": checks, "token": token}

    def check(en: str, zh: str) -> None:
        checks.append({"check": {"en": en, "zh": zh}, "ok": True})

    try:
        spec = importlib.util.spec_from_file_location("solution", file)
        solution = importlib.util.module_from_spec(spec)
        check(f"load {file.name}", f"加载 {file.name}")
        spec.loader.exec_module(solution)
        exercise.run(solution, check)
    except Fail as fail:
        checks[-1].update(ok=False, text=fail.text, expected=fail.expected, found=fail.found, hint=fail.hint)
    except AttributeError as error:
        name = getattr(error, "name", None)
        if name and getattr(error, "obj", None) is solution:
            checks[-1].update(ok=False, missing=name)
        else:
            checks[-1].update(ok=False, error=f"{type(error).__name__}: {error}", where=_where(error, file))
    except BaseException as error:  # the reader's code may raise anything, even SystemExit
        checks[-1].update(ok=False, error=f"{type(error).__name__}: {error}", where=_where(error, file))
    result_path.write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")


# --- the parent: run the child with limits, then tell the reader what happened ---

@dataclass
class Verdict:
    passed: bool
    lines: list[str]


def judge(exercise_id: str, file: Path, language: str = "en", timeout: float = TIMEOUT_SECONDS) -> Verdict:
    say = WORDS[language]
    exercises = load_exercises()
    if exercise_id not in exercises:
        return Verdict(False, [say["unknown"].format(id=exercise_id)])
    if not file.is_file():
        return Verdict(False, [say["no-file"].format(file=file)])
    exercise = exercises[exercise_id]
    lines = [say["exercise"].format(id=exercise_id, title=exercise.title[language])]
    with tempfile.TemporaryDirectory() as folder:
        result_path, token = Path(folder) / "result.json", secrets.token_hex(16)
        with subprocess.Popen(
                [sys.executable, __file__, "--child", exercise_id, str(file.resolve()), str(result_path)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                env={**os.environ, "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"}, cwd=ROOT) as child:
            try:
                child.stdin.write(token + "\n")
                child.stdin.close()
            except OSError:  # the child is already gone: reported below
                pass
            printed, stopped = [], None
            reader = threading.Thread(target=lambda: printed.extend(iter(lambda: child.stdout.read(1024), "")))
            reader.start()
            start = time.monotonic()
            while child.poll() is None:
                if time.monotonic() - start > timeout:
                    stopped = say["timeout"].format(seconds=int(timeout))
                elif sum(map(len, printed)) > OUTPUT_LIMIT:
                    stopped = say["flood"].format(limit=OUTPUT_LIMIT)
                if stopped:
                    child.kill()
                    break
                time.sleep(0.05)
            child.wait()
            reader.join()
        output = "".join(printed)
        if stopped:
            return Verdict(False, lines + [stopped] + _printed(output, say))
        try:
            result = json.loads(result_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            result = {}
        if not isinstance(result, dict) or result.get("token") != token:  # none, or not the judge's
            return Verdict(False, lines + [say["died"].format(status=child.returncode)] + _printed(output, say))
        checks = result["checks"]
    for item in checks:
        if item["ok"]:
            lines.append(say["passed"].format(check=item["check"][language]))
            continue
        lines.append(say["failed"].format(check=item["check"][language]))
        if "missing" in item:
            lines.append("  " + say["missing"].format(file=file.name, name=item["missing"]))
        elif "error" in item:
            where = say["where"].format(**item["where"]) if item.get("where") else ""
            lines.append("  " + say["raised"].format(error=item["error"], where=where))
        else:
            lines.append("  " + item["text"][language])
            if item["expected"][language]:
                lines.append(say["expected"].format(text=item["expected"][language]))
            if item["found"][language]:
                lines.append(say["found"].format(text=item["found"][language]))
            if item["hint"][language]:
                lines.append(say["hint"].format(text=item["hint"][language]))
    passed = all(item["ok"] for item in checks)
    lines.append(say["verdict-pass"].format(n=len(checks)) if passed else say["verdict-fail"].format(n=len(checks)))
    return Verdict(passed, lines + ([] if passed else _printed(output, say)))


def _printed(output: str, say: dict) -> list[str]:
    shown = [line for line in output.splitlines() if line.strip()][:10]
    return [say["printed"], *("  | " + line[:200] for line in shown)] if shown else []


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        run_child(argv[1], Path(argv[2]), Path(argv[3]))
        return 0
    parser = argparse.ArgumentParser(prog="nox -s judge --", description=__doc__.splitlines()[0])
    parser.add_argument("exercise", nargs="?", help="<chapter>/<name>, as --list shows")
    parser.add_argument("file", nargs="?", type=Path, help="your solution, a copy of the starter file")
    parser.add_argument("--lang", choices=sorted(WORDS), default="en", help="the language of the verdict")
    parser.add_argument("--list", action="store_true", help="list the exercises")
    args = parser.parse_args(argv)
    if args.list or not args.exercise:
        for id, found in sorted(load_exercises().items()):
            print(f"{id:45} {found.title[args.lang]}")
            print(f"{'':45} starter: {found.starter.relative_to(ROOT)}")
        return 0
    if args.file is None:
        parser.error("give the file to judge")
    verdict = judge(args.exercise, args.file, args.lang)
    print("\n".join(verdict.lines))
    return 0 if verdict.passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
