"""The judge of the book's exercises: it runs a reader's solution with the reader's own torch and
says, in English or Chinese, what it checked, what it expected and what it found.

Installed with pip (``pip install --find-links <the book's site>/judge/ autograd-measured-judge``)
into any environment that has a torch in ``TORCH_RANGE``, on Linux, macOS or Windows::

    python -m exercise_judge --list
    python -m exercise_judge gradient-accumulation/micro-batches my_solution.py [--lang zh]

From Python (a notebook cell, say)::

    from exercise_judge import exercises, judge

    for id, exercise in exercises().items():   # id: "<chapter>/<name>"
        print(id, exercise.title["en"])
    verdict = judge("gradient-accumulation/micro-batches", "my_solution.py", language="zh")
    verdict.passed   # True when every check held
    verdict.lines    # the report, line by line (verdict.text: joined)

The solution runs in a child process (``runner``, ``child``) in its own folder, stopped after
``timeout`` seconds or when it prints too much (``limits``, which hold the book's own snippets too).
The checks of each chapter are in ``exercise_judge.checks.<chapter>``, written with
``exercise_judge.checking``; the instruments that watch how a solution works (which backward passes
it ran, which torch functions it called) are in ``exercise_judge.spies``. The package needs nothing
but the standard library and torch.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path
from typing import Union

# A torch installed without numpy warns "Failed to initialize NumPy" when the checks import it. That
# is the judge's import, not the reader's: it must not appear in the verdict as printed by their code.
warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)

from exercise_judge.checking import Exercise, load
from exercise_judge.limits import TIMEOUT_SECONDS
from exercise_judge.runner import Launch, launch_subprocess, run
from exercise_judge.verdict import LANGUAGES, Verdict, refused, report

__all__ = ["LANGUAGES", "TORCH_RANGE", "Exercise", "Verdict", "exercises", "judge", "torch_support"]

# The torch releases the checks are proven on (the book's supported versions, 2.6.0 to 2.15.0): at
# least the first, below the second. The extra `autograd-measured-judge[torch]` names the same range.
TORCH_RANGE = ((2, 6), (2, 16))


def _release(version: str) -> tuple[int, ...]:
    """(2, 13) from '2.13.0+cpu', '2.15.0a0' or '2.6.0.dev20250101'."""
    return tuple(int(number) for number in re.match(r"(\d+)\.(\d+)", version).groups())


def torch_support() -> tuple[str, str | None]:
    """("ok", version) when the installed torch is in TORCH_RANGE; ("torch-range", version) when it is
    outside; ("no-torch", None) when torch is not installed. Asks the installed metadata: no import."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("torch")
    except PackageNotFoundError:
        return "no-torch", None
    lowest, above = TORCH_RANGE
    return ("ok" if lowest <= _release(found) < above else "torch-range"), found


def exercises() -> dict[str, Exercise]:
    """Every exercise of the book, by id ("<chapter>/<name>"), each with its title in both languages
    and its chapter."""
    return load()


def judge(
    exercise_id: str,
    file: Union[str, Path],
    language: str = "en",
    timeout: float = TIMEOUT_SECONDS,
    launch: Launch = launch_subprocess,
) -> Verdict:
    """Run the checks of one exercise on `file` and say what they found, in `language` ("en" or "zh");
    `launch` starts the child process (see ``runner.run``)."""
    file = Path(file)
    support, found = torch_support()
    if support != "ok":
        lowest, above = TORCH_RANGE
        return refused(
            exercise_id,
            language,
            support,
            found=found,
            python=sys.executable,
            lowest=".".join(map(str, lowest)),
            above=".".join(map(str, above)),
        )
    known = exercises().get(exercise_id)
    if known is None:
        return refused(exercise_id, language, "unknown", id=exercise_id)
    if not file.is_file():
        return refused(exercise_id, language, "no-file", file=file)
    source = file.read_bytes()  # as the child loads it: the reader's code may rewrite the file later
    ran = run(exercise_id, file, timeout, launch)
    # An exercise may check once more here, in a process that never ran the reader's code (which, in the
    # child, could rewrite the checks): `confirm(file, source)` returns None, or a failed check.
    confirm = getattr(known.run, "confirm", None)
    if confirm is not None and ran.checks and all(item["ok"] for item in ran.checks):
        failed = confirm(file, source)
        if failed is not None:
            ran.checks.append(failed)
    return report(known, file, ran, language, timeout)
