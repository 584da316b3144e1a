"""The judge's command line: ``python -m exercise_judge EXERCISE FILE [--lang zh]``, or ``--list``.

``nox -s judge -- ARGS`` runs it in the default torch's venv. Everything it does is in the package's
API (``exercise_judge.exercises``, ``exercise_judge.judge``); this module only reads the arguments.
"""

import argparse
import os
import sys
from pathlib import Path

from exercise_judge import LANGUAGES, exercises, judge


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m exercise_judge",
                                     description="Judge your solution to one of the book's exercises "
                                                 "(through nox: nox -s judge -- ARGS).")
    parser.add_argument("exercise", nargs="?", help="<chapter>/<name>, as --list shows")
    parser.add_argument("file", nargs="?", type=Path, help="your solution, a copy of the starter file")
    parser.add_argument("--lang", choices=LANGUAGES, default="en", help="the language of the verdict")
    parser.add_argument("--list", action="store_true", help="list the exercises")
    args = parser.parse_args(argv)
    if args.list or not args.exercise:
        for id, found in sorted(exercises().items()):
            print(f"{id:45} {found.title[args.lang]}")
            print(f"{'':45} starter: {os.path.relpath(found.starter)}")
        return 0
    if args.file is None:
        parser.error("give the file to judge")
    verdict = judge(args.exercise, args.file, args.lang)
    print(verdict.text)
    return 0 if verdict.passed else 1


if __name__ == "__main__":
    sys.exit(main())
