"""The judge of the book's exercises: it runs a reader's solution and says, in English or Chinese,
what it checked, what it expected and what it found.

From the repository root, in the torch venv (``nox -s judge -- ARGS`` runs the same command)::

    python -m exercise_judge --list
    python -m exercise_judge gradient-accumulation/micro-batches my_solution.py [--lang zh]

From Python::

    from exercise_judge import exercises, judge

    for id, exercise in exercises().items():   # id: "<chapter>/<name>"
        print(id, exercise.title["en"], exercise.starter, exercise.solution)
    verdict = judge("gradient-accumulation/micro-batches", "my_solution.py", language="zh")
    verdict.passed   # True when every check held
    verdict.lines    # the report, line by line (verdict.text: joined)

The solution runs in a child process (``runner``, ``child``), stopped after ``timeout`` seconds or
when it prints too much. The checks of each chapter are in ``exercise_judge.checks.<chapter>``,
written with ``exercise_judge.checking``; the instruments that watch how a solution works (which
backward passes it ran, which torch functions it called) are in ``exercise_judge.spies``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# The judge works in a checkout of the book: the starters and solutions it knows are files of it, and
# the project is installed editable, this package being snippets/exercise_judge/. The book's settings
# (conf/book_settings.py: where things are, the one-thread run environment) are importable when
# PYTHONPATH holds conf/, as every nox session sets it; a plain `python -m exercise_judge` has no such
# path, so conf/ of this checkout is appended, behind everything else.
if importlib.util.find_spec("book_settings") is None:
    _CONF = Path(__file__).resolve().parents[2] / "conf"
    if not (_CONF / "book_settings.py").is_file():
        raise ImportError(f"exercise_judge runs in a checkout of the book, with its conf/ folder; there is no "
                          f"{_CONF / 'book_settings.py'} (is the project installed from elsewhere than this checkout?)")
    sys.path.append(str(_CONF))

from exercise_judge.checking import Exercise, load  # noqa: E402
from exercise_judge.runner import TIMEOUT_SECONDS, Launch, launch_subprocess, run  # noqa: E402
from exercise_judge.verdict import LANGUAGES, Verdict, refused, report  # noqa: E402

__all__ = ["LANGUAGES", "Exercise", "Verdict", "exercises", "judge"]


def exercises() -> dict[str, Exercise]:
    """Every exercise of the book, by id ("<chapter>/<name>"), each with its title in both
    languages, its chapter, its starter and its reference solution."""
    return load()


def judge(exercise_id: str, file: str | Path, language: str = "en", timeout: float = TIMEOUT_SECONDS,
          launch: Launch = launch_subprocess) -> Verdict:
    """Run the checks of one exercise on `file` and say what they found, in `language` ("en" or "zh");
    `launch` starts the child process (see ``runner.run``)."""
    file = Path(file)
    found = exercises().get(exercise_id)
    if found is None:
        return refused(exercise_id, language, "unknown", id=exercise_id)
    if not file.is_file():
        return refused(exercise_id, language, "no-file", file=file)
    return report(found, file, run(exercise_id, file, timeout, launch), language, timeout)
