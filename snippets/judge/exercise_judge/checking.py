"""What the check modules in ``exercise_judge.checks`` are written with, and the registry they fill.

A chapter's module registers each exercise with ``@exercise``; the registered function receives the
reader's module and ``check``, calls ``check(en, zh)`` before each check, and raises ``Fail`` when one
does not hold, saying what was expected and what was found, in English and in Chinese::

    @exercise("gradient-accumulation/micro-batches", en="…", zh="…")
    def micro_batches(solution, check):
        check("accumulate(…) fills .grad like one batch", "accumulate(…) 留下的 .grad 和一个批次相同")
        if solution.accumulate(…) is None:
            raise Fail("…", "…", expected=("…", "…"), found="None", hint_en="…", hint_zh="…")

torch is not imported here (the checks import it): listing the package's API stays light.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable


class Fail(Exception):
    """A check that does not hold: what was expected and what was found, in both languages."""

    def __init__(
        self,
        en: str,
        zh: str,
        *,
        expected: str | tuple = "",
        found: str | tuple = "",
        hint_en: str = "",
        hint_zh: str = "",
    ):
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


def shown(value) -> str:
    """A returned value in a verdict: its repr, cut to 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def described(value) -> tuple[str, str]:
    """'dict: {...}': a returned value with its type, in English and in Chinese."""
    return f"{type(value).__name__}: {shown(value)}", f"{type(value).__name__}：{shown(value)}"


@dataclass
class Exercise:
    id: str  # <chapter>/<name>
    title: dict  # {"en": …, "zh": …}
    run: Callable  # run(solution_module, check) -> None; calls check(en, zh) before each check

    @property
    def chapter(self) -> str:
        return self.id.split("/")[0]


EXERCISES: dict[str, Exercise] = {}


def exercise(id: str, *, en: str, zh: str):
    """Register the checks of one exercise (used in exercise_judge/checks/<chapter>.py)."""

    def register(run):
        EXERCISES[id] = Exercise(id, {"en": en, "zh": zh}, run)
        return run

    return register


def load() -> dict[str, Exercise]:
    """Every exercise, by id: imports each chapter's module of exercise_judge.checks once."""
    from exercise_judge import checks

    for module in pkgutil.iter_modules(checks.__path__):
        if not module.name.startswith("_"):  # _shared: helpers of several chapters, no exercise
            importlib.import_module(f"{checks.__name__}.{module.name}")
    return EXERCISES
