"""Run the checks of one exercise on the reader's file in a child process, within limits.

The reader's file runs in ``python -m exercise_judge.child``, so that a solution that hangs, floods
the terminal or crashes is stopped and reported in plain words, never as a bare traceback. The
limits are the book's own (``limits.watch``). The clock starts when the child says it has begun (a
file beside the result): starting Python and importing torch is the machine's time, not the
solution's, and is capped separately (STARTUP_SECONDS).
The child runs in the solution file's folder with one thread (``RUN_ENV``: float32 reductions
then give the same digits on every machine, as in the book's own runs).
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Union

from exercise_judge.limits import TIMEOUT_SECONDS, watch

STARTUP_SECONDS = 180  # Python starting and importing torch and the checks, before the reader's code runs
# The book's run environment (conf/book_settings.py's RUN_ENV holds the same; a test compares them).
RUN_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}


def launch_subprocess(args: list, *, env: dict, cwd: Union[str, Path]) -> subprocess.Popen:
    """A new interpreter with text pipes: stdin, and stdout with stderr merged into it (UTF-8, as the
    child writes it)."""
    return subprocess.Popen(
        args,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        encoding="utf-8",
        errors="replace",
        env=env,
        cwd=cwd,
    )


BEGAN = "began"  # the child creates this file beside the result when the reader's code is about to run

# launch(args, env=..., cwd=...) -> a context manager with stdin, stdout, poll(), kill(), wait(), returncode:
# launch_subprocess, or the book's tests' prewarmed.Server (forks of a process that imported torch once).
Launch = Callable[..., object]


@dataclass
class Run:
    """What the child did: the checks it reported, or why it was stopped or believed not."""

    checks: Optional[list]  # one dict per check begun, as child.py writes them; None: no result to believe
    stopped: Optional[str]  # "timeout", "slow-start" or "flood" when the judge stopped the child (limits.watch)
    output: str  # what the reader's code printed
    status: Optional[int]  # the child's exit status


def run(
    exercise_id: str,
    file: Path,
    timeout: float = TIMEOUT_SECONDS,
    launch: Launch = launch_subprocess,
    startup: float = STARTUP_SECONDS,
) -> Run:
    """`launch` starts the child (see ``Launch``), in the folder of `file`; the child is stopped when it
    has not begun the reader's code after `startup` seconds, or has run it for `timeout` seconds."""
    file = file.resolve()
    with tempfile.TemporaryDirectory() as folder:
        result_path, token = Path(folder) / "result.json", secrets.token_hex(16)
        began_path = result_path.with_name(BEGAN)
        with launch(
            [sys.executable, "-m", "exercise_judge.child", exercise_id, str(file), str(result_path)],
            env={**os.environ, **RUN_ENV, "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"},
            cwd=file.parent,
        ) as child:
            try:
                child.stdin.write(token + "\n")
                child.stdin.close()
            except OSError:  # the child is already gone: reported by the caller
                pass
            output, stopped = watch(child, timeout, began=began_path.exists, startup=startup)
        try:
            result = json.loads(result_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            result = {}
    believed = not stopped and isinstance(result, dict) and result.get("token") == token  # none, or not the judge's
    return Run(result["checks"] if believed else None, stopped, output, child.returncode)
