"""A reader's install of the judge, checked: run with only a torch and the judge's wheel installed,
from a folder outside the repository (`nox -s judge_wheel -- <torch>`, and the GitHub workflow's
judge job on Linux, macOS and Windows)::

    python -I tests/judge_wheel.py [REPOSITORY] [--no-wrong-attempts]

Every reference solution passes, every starter fails, and every wrong attempt in tests/wrong_attempts
gets its expected verdict (its first line: `# expect: <words>`), each judged from a copy in a scratch
folder. `--no-wrong-attempts` judges the solutions and starters only: `.ci/run` passes it, because
`nox -s tests` judges every wrong attempt with the same installed wheel on every supported torch.
A wrong attempt that uses numpy is skipped, and counted as skipped, where numpy is not installed
(torch does not require it). The repository is read as data only: the judge must not be
imported from it. Exit status 1 names each case that went wrong.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import sysconfig
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def cases(root: Path, ids: list[str], wrong_attempts: bool) -> list[tuple[str, Path, bool, str]]:
    """(exercise, file, whether it must pass, words its verdict must contain)."""
    found = []
    for exercise in ids:
        chapter, name = exercise.split("/")
        starter = root / "snippets" / chapter / f"exercise-{name}.py"
        found += [
            (exercise, starter.with_name(f"exercise-{name}-solution.py"), True, ""),
            (exercise, starter, False, "✘"),
        ]
    for attempt in sorted((root / "tests" / "wrong_attempts").glob("*.py")) if wrong_attempts else []:
        expected = attempt.read_text(encoding="utf-8").splitlines()[0].removeprefix("# expect:").strip()
        found.append(("/".join(attempt.stem.split("--")[:2]), attempt, False, expected))
    return found


def main() -> int:
    wrong_attempts = "--no-wrong-attempts" not in sys.argv[1:]
    arguments = [argument for argument in sys.argv[1:] if argument != "--no-wrong-attempts"]
    root = Path(arguments[0] if arguments else Path(__file__).resolve().parents[1]).resolve()
    import exercise_judge
    from exercise_judge import exercises, judge

    installed = Path(exercise_judge.__file__).resolve().parent
    site_packages = Path(sysconfig.get_paths()["purelib"]).resolve()
    if installed.is_relative_to(root / "snippets") or not installed.is_relative_to(site_packages):
        print(f"the judge was imported from {installed}, not from where pip installed its wheel ({site_packages})")
        return 1
    support, torch = exercise_judge.torch_support()
    print(f"judge from {installed}; torch {torch} ({support}); python {sys.version.split()[0]} on {sys.platform}")
    if support != "ok":
        print(judge("", "").text)
        return 1
    todo = cases(root, sorted(exercises()), wrong_attempts)
    if importlib.util.find_spec("numpy") is None:
        skipped = [case for case in todo if "numpy" in case[1].read_text(encoding="utf-8")]
        todo = [case for case in todo if case not in skipped]
        for exercise, source, _, _ in skipped:
            print(f"skipped {exercise} {source.name}: it uses numpy, which is not installed here")
    with tempfile.TemporaryDirectory() as scratch:

        def judged(case):
            exercise, source, must_pass, words = case
            folder = Path(scratch) / f"{exercise.replace('/', '--')}--{source.stem}"
            folder.mkdir()
            copy = folder / source.name
            shutil.copyfile(source, copy)
            verdict = judge(exercise, copy)
            # torch's own import warning (no numpy here) is the judge's, never the reader's printed output
            quiet = "Failed to initialize NumPy" not in verdict.text
            return case, verdict, verdict.passed == must_pass and words in verdict.text and quiet

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            results = list(pool.map(judged, todo))
    failed = [(case, verdict) for case, verdict, ok in results if not ok]
    for (exercise, source, must_pass, words), verdict in failed:
        print(
            f"\nFAIL {exercise} {source.name}: expected {'a pass' if must_pass else 'a fail'}"
            f"{f' with {words!r}' if words else ''}; the verdict:\n{verdict.text}"
        )
    print(
        f"\n{len(results) - len(failed)} of {len(results)} verdicts as expected "
        f"({len(exercises())} exercises: solutions, starters{', wrong attempts' if wrong_attempts else ''})"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")
    sys.exit(main())
