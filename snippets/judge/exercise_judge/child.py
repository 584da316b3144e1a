"""The child process: ``python -m exercise_judge.child EXERCISE FILE RESULT``, started by ``runner``.

It loads the reader's file, runs the exercise's checks on it and writes what each check found to
RESULT as JSON, with the one-time token the parent wrote on its stdin: the parent believes only a
result that carries it. A reader's file that writes RESULT itself (its path is in sys.argv) does not
know it. A hardening, not a lock: code running in this process could still dig the token out of
the frame of ``run``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import sys
import traceback
from pathlib import Path

from exercise_judge import spies
from exercise_judge.checking import Fail, load
from exercise_judge.runner import BEGAN


def _where(error: BaseException, file: Path) -> dict:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if Path(f.filename).resolve() == file.resolve()]
    if not frames:
        return {}
    return {"file": file.name, "line": frames[-1].lineno, "code": (frames[-1].line or "").strip()}


def run(exercise_id: str, file: Path, result_path: Path) -> None:
    # The parent reads UTF-8 whatever the console's code page (Windows: often cp1252 or gbk).
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="replace")
    token = sys.stdin.readline().strip()
    exercise = load()[exercise_id]
    spies.install()  # before the reader's file runs: whatever it keeps of torch.autograd leads to the recorder
    checks = []
    result = {"checks": checks, "token": token}

    def check(en: str, zh: str) -> None:
        checks.append({"check": {"en": en, "zh": zh}, "ok": True})

    result_path.with_name(BEGAN).touch()  # the parent's clock for `timeout` starts here
    try:
        spec = importlib.util.spec_from_file_location("solution", file)
        solution = importlib.util.module_from_spec(spec)
        check(f"load {file.name}", f"加载 {file.name}")
        with getattr(exercise.run, "loading", contextlib.nullcontext)(file):  # an exercise may watch the load
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


if __name__ == "__main__":
    run(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]))
