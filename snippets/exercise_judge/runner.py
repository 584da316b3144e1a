"""Run the checks of one exercise on the reader's file in a child process, within limits.

The reader's file runs in ``python -m exercise_judge.child``, so that a solution that hangs, floods
the terminal or crashes is stopped and reported in plain words, never as a bare traceback. The
child runs with the book's run environment (one thread: float32 reductions give the same digits
on every machine) from the repository root.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from book_settings import ROOT, RUN_ENV
from prewarmed import launch_subprocess

Launch = Callable[..., object]  # prewarmed.launch_subprocess or a prewarmed.Server

TIMEOUT_SECONDS = 60
OUTPUT_LIMIT = 20_000  # characters a solution may print before it is stopped


@dataclass
class Run:
    """What the child did: the checks it reported, or why it was stopped or believed not."""

    checks: list[dict] | None  # one dict per check begun, as child.py writes them; None: no result to believe
    stopped: str | None  # "timeout" or "flood" when the judge stopped the child
    output: str  # what the reader's code printed
    status: int | None  # the child's exit status


def run(exercise_id: str, file: Path, timeout: float = TIMEOUT_SECONDS, launch: Launch = launch_subprocess) -> Run:
    """`launch` starts the child: a plain subprocess, or a fork of a process that imported torch already
    (``prewarmed.Server``, as the tests use for their hundreds of runs)."""
    with tempfile.TemporaryDirectory() as folder:
        result_path, token = Path(folder) / "result.json", secrets.token_hex(16)
        with launch([sys.executable, "-m", "exercise_judge.child", exercise_id, str(file.resolve()), str(result_path)],
                    env={**os.environ, **RUN_ENV, "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"}, cwd=ROOT) as child:
            try:
                child.stdin.write(token + "\n")
                child.stdin.close()
            except OSError:  # the child is already gone: reported by the caller
                pass
            printed, stopped = [], None
            reader = threading.Thread(target=lambda: printed.extend(iter(lambda: child.stdout.read(1024), "")))
            reader.start()
            start = time.monotonic()
            while child.poll() is None:
                if time.monotonic() - start > timeout:
                    stopped = "timeout"
                elif sum(map(len, printed)) > OUTPUT_LIMIT:
                    stopped = "flood"
                if stopped:
                    child.kill()
                    break
                time.sleep(0.05)
            child.wait()
            reader.join()
        try:
            result = json.loads(result_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            result = {}
    believed = not stopped and isinstance(result, dict) and result.get("token") == token  # none, or not the judge's
    return Run(result["checks"] if believed else None, stopped, "".join(printed), child.returncode)
