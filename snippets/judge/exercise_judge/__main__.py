"""The judge's command line: ``python -m exercise_judge EXERCISE FILE [--lang zh]``, or ``--list``.

Everything it does is in the package's API (``exercise_judge.exercises``, ``exercise_judge.judge``);
this module only reads the arguments. In the book's repository ``nox -s judge -- ARGS`` runs it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from exercise_judge import LANGUAGES, exercises, judge, torch_support


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m exercise_judge",
        description="Judge your solution to one of the exercises of Autograd, Measured, with the torch installed here.",
    )
    parser.add_argument("exercise", nargs="?", help="<chapter>/<name>, as --list shows")
    parser.add_argument("file", nargs="?", type=Path, help="your solution, a copy of the starter file")
    parser.add_argument("--lang", choices=LANGUAGES, default="en", help="the language of the verdict")
    parser.add_argument("--list", action="store_true", help="list the exercises")
    args = parser.parse_args(argv)
    if hasattr(sys.stdout, "reconfigure"):  # a Windows console's code page may not hold ✔, ✘ or Chinese
        sys.stdout.reconfigure(errors="replace")
    if args.list or not args.exercise:
        if torch_support()[0] != "ok":  # the checks import torch: without a supported one, say why instead
            print(judge("", "", args.lang).text)
            return 1
        for id, known in sorted(exercises().items()):
            print(f"{id:45} {known.title[args.lang]}")
        return 0
    if args.file is None:
        parser.error("give the file to judge")
    verdict = judge(args.exercise, args.file, args.lang)
    print(verdict.text)
    return 0 if verdict.passed else 1


if __name__ == "__main__":
    sys.exit(main())
