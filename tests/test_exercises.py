"""Every exercise: its reference solution passes, its starter fails with a readable verdict, a
typical wrong attempt gets a specific one, and both language pages offer it. The judge tested is the
one a reader installs: the wheel nox builds from snippets/judge and installs in the venv."""

import ast
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import book_settings
import exercise_judge
from book_extensions import pages
from book_settings import ROOT, exercise_file
from exercise_judge import exercises, judge
from exercise_judge.limits import TIMEOUT_SECONDS
from exercise_judge.runner import launch_subprocess, run
from exercise_judge.verdict import LANGUAGES, report

EXERCISES = exercises()
WRONG = Path(__file__).parent / "wrong_attempts"
ACCEPTED = Path(__file__).parent / "accepted_attempts"


@pytest.mark.torch_independent
def test_the_judge_is_the_installed_wheel_not_the_source_tree():
    """A reader has no checkout: the tests import the judge from where pip installed it."""
    installed = Path(exercise_judge.__file__).resolve()
    site_packages = Path(sysconfig.get_paths()["purelib"]).resolve()
    assert installed.is_relative_to(site_packages) and not installed.is_relative_to(book_settings.SNIPPETS.resolve()), (
        f"exercise_judge imported from {installed}, not from where pip installed it ({site_packages})"
    )
    from importlib.metadata import version

    judge_project = (book_settings.JUDGE / "pyproject.toml").read_text(encoding="utf-8")
    assert f'version = "{version(book_settings.JUDGE_DISTRIBUTION)}"' in judge_project


@pytest.mark.torch_independent
def test_the_judge_runs_as_the_book_runs_its_code():
    """One thread, the same hash seed: the judge's own copy of the book's run environment."""
    assert exercise_judge.runner.RUN_ENV == book_settings.RUN_ENV


@pytest.mark.torch_independent
def test_the_judge_says_when_torch_is_outside_its_range(monkeypatch):
    """The installed torch (within the range here) is judged against a range that leaves it out."""
    support, found = exercise_judge.torch_support()
    assert support == "ok" and found.startswith(book_settings.installed_torch()), (support, found)
    monkeypatch.setattr(exercise_judge, "TORCH_RANGE", ((9, 0), (9, 1)))
    assert exercise_judge.torch_support() == ("torch-range", found)
    exercise = sorted(EXERCISES)[0]
    for language, words in (
        ("en", f"has torch {found}; the judge supports torch 9.0 or newer, below 9.1"),
        ("zh", f"装的是 torch {found}，而评测只支持 9.0 及以上、低于 9.1 的 torch"),
    ):
        verdict = judge(exercise, exercise_file(exercise), language)
        assert not verdict.passed and words in verdict.text, verdict.text


def test_the_torch_range_is_the_one_the_book_supports():
    """TORCH_RANGE covers every supported torch; the extra [torch] and README's install step name the same range."""
    (lowest, above) = exercise_judge.TORCH_RANGE
    releases = [tuple(int(n) for n in version.split(".")[:2]) for version in book_settings.TORCH_VERSIONS]
    assert lowest == min(releases) and max(releases) < above, (exercise_judge.TORCH_RANGE, releases)
    judge_project = (book_settings.JUDGE / "pyproject.toml").read_text(encoding="utf-8")
    assert f'torch = ["torch>={lowest[0]}.{lowest[1]},<{above[0]}.{above[1]}"]' in judge_project
    readme = (book_settings.ROOT / "README.md").read_text(encoding="utf-8")
    assert f"Install torch ({lowest[0]}.{lowest[1]} or newer, below {above[0]}.{above[1]})" in readme


def test_the_shown_code_of_predict_grad_is_the_starters():
    """checks/graph_lifecycle.py runs the code the starter's docstrings show; it carries its own copy."""
    from exercise_judge.checks.graph_lifecycle import SHOWN_CODE

    starter = exercise_file("graph-lifecycle/predict-grad").read_text(encoding="utf-8")
    shown = {
        node.name: ast.get_docstring(node).split("\n", 1)[1].strip() + "\n"
        for node in ast.parse(starter).body
        if isinstance(node, ast.FunctionDef) and node.name in SHOWN_CODE
    }
    assert shown == SHOWN_CODE


def test_there_are_at_least_ten_exercises():
    assert len(EXERCISES) >= 10, sorted(EXERCISES)


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_reference_solution_passes(exercise, launch):
    verdict = judge(exercise, exercise_file(exercise, solution=True), launch=launch)
    assert verdict.passed, verdict.text


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_starter_fails_readably(exercise, launch):
    """The starter runs once (what it does is the same whatever the reader's language); the verdict
    on that run, in each language, fails without a traceback."""
    starter = exercise_file(exercise)
    ran = run(exercise, starter, TIMEOUT_SECONDS, launch)
    for language in LANGUAGES:
        verdict = report(EXERCISES[exercise], starter, ran, language, TIMEOUT_SECONDS)
        text = verdict.text
        assert not verdict.passed, f"the starter of {exercise} already passes: nothing left to do\n{text}"
        assert "Traceback" not in text and "✘" in text, f"{language}:\n{text}"


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_every_exercise_has_a_typical_wrong_attempt(exercise):
    """tests/wrong_attempts/<chapter>--<name>.py: a mistake a new reader makes."""
    attempt = WRONG / f"{exercise.replace('/', '--')}.py"
    assert attempt.is_file(), f"{pages.relative(attempt)} is missing"


@pytest.mark.parametrize("attempt", sorted(WRONG.glob("*.py")), ids=lambda path: path.stem)
def test_a_wrong_attempt_gets_its_specific_verdict(attempt, launch):
    """Every file in tests/wrong_attempts/: <chapter>--<name>.py, the typical mistake, and
    <chapter>--<name>--<what-it-skips>.py, a solution that reaches the right numbers without the
    exercise's method. Its first line says `# expect: <words only that verdict contains>`."""
    exercise = "/".join(attempt.stem.split("--")[:2])
    assert exercise in EXERCISES, f"{pages.relative(attempt)} names no exercise"
    expected = attempt.read_text(encoding="utf-8").splitlines()[0].removeprefix("# expect:").strip()
    verdict = judge(exercise, attempt, launch=launch)
    text = verdict.text
    assert not verdict.passed and expected in text, f"expected {expected!r} in:\n{text}"


@pytest.mark.parametrize("attempt", sorted(ACCEPTED.glob("*.py")), ids=lambda path: path.stem)
def test_an_accepted_alternative_passes(attempt, launch):
    """Every file in tests/accepted_attempts/, <chapter>--<name>--<how-it-differs>.py: a right solution
    written otherwise than the reference, which a method check could mistake for a shortcut."""
    exercise = "/".join(attempt.stem.split("--")[:2])
    assert exercise in EXERCISES, f"{pages.relative(attempt)} names no exercise"
    verdict = judge(exercise, attempt, launch=launch)
    assert verdict.passed, verdict.text


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_both_chapter_pages_offer_the_exercise(exercise):
    found = EXERCISES[exercise]
    starter, solution = exercise_file(exercise), exercise_file(exercise, solution=True)
    for language in pages.LANGUAGES:
        page = pages.book_pages(language)[f"{found.chapter}.md"]
        assert starter in page.references and solution in page.references, (
            f"docs/{language}/{found.chapter}.md must link {pages.relative(starter)} for download and "
            f"show {pages.relative(solution)}"
        )
        assert exercise in page.text, f"docs/{language}/{found.chapter}.md does not name the judge command"


@pytest.mark.torch_independent
def test_a_solution_that_hangs_or_floods_is_stopped(tmp_path, launch):
    hang, flood = tmp_path / "hang.py", tmp_path / "flood.py"
    hang.write_text("while True:\n    pass\n")
    flood.write_text("while True:\n    print('x' * 100)\n")
    any_exercise = sorted(EXERCISES)[0]
    hung = judge(any_exercise, hang, timeout=5, launch=launch)
    assert not hung.passed and "did not finish" in hung.text
    flooded = judge(any_exercise, flood, "zh", launch=launch)
    assert not flooded.passed and "输出超过了" in flooded.text


def slow_start(seconds: float):
    """A launch whose child sleeps `seconds` before it imports anything: a busy machine's start."""

    def launch(args, **popen):
        at = args.index("-m") + 1
        module, arguments = args[at], args[at + 1 :]
        delayed = [
            args[0],
            "-c",
            f"import runpy, sys, time; time.sleep({seconds}); sys.argv[0] = {module!r}; "
            f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)",
            *arguments,
        ]
        return launch_subprocess(delayed, **popen)

    return launch


@pytest.mark.torch_independent
def test_the_time_limit_counts_the_solution_not_the_start(tmp_path):
    """A child that takes 8 s to start still has its 6 s for the reader's code; one that has not begun
    the reader's code within `startup` seconds is stopped and said to be slow to start."""
    exercise = "leaf-tensors/why-none"
    solution = exercise_file(exercise, solution=True)
    late = judge(exercise, solution, timeout=6, launch=slow_start(8))
    assert late.passed, late.text
    never = run(exercise, solution, startup=3, launch=slow_start(30))
    assert never.stopped == "slow-start" and never.checks is None
    assert "still starting after" in report(EXERCISES[exercise], solution, never, "en", TIMEOUT_SECONDS).text


def test_a_file_that_writes_the_result_itself_is_not_believed(tmp_path, launch):
    """The reader's file runs in the child that writes the result, and can see where: the parent
    believes only a result that carries the token it handed the child on stdin."""
    forged = tmp_path / "forged.py"
    forged.write_text(
        "import json, os, sys\n"
        "passed = {'checks': [{'check': {'en': 'all', 'zh': 'all'}, 'ok': True}]}\n"
        "json.dump(passed, open(sys.argv[-1], 'w'))\n"
        "os._exit(0)\n"
    )
    verdict = judge(sorted(EXERCISES)[0], forged, launch=launch)
    assert not verdict.passed and "ended abruptly" in verdict.text, verdict.text


def test_unknown_exercise_and_missing_file_are_named():
    assert "--list" in judge("no/such-exercise", ROOT / "README.md").text
    assert "no-such-file.py" in judge(sorted(EXERCISES)[0], Path("no-such-file.py")).text


@pytest.mark.torch_independent
def test_the_command_line_runs_outside_the_checkout(tmp_path):
    """`python -m exercise_judge`, as a reader runs it: in a folder of their own, with no PYTHONPATH,
    it lists every exercise and judges a copy of a starter file lying there."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}

    def judge_command(*args):
        return subprocess.run(
            [sys.executable, "-m", "exercise_judge", *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            encoding="utf-8",
        )

    listed = judge_command("--list", "--lang", "zh")
    assert listed.returncode == 0 and all(id in listed.stdout for id in EXERCISES), listed.stdout + listed.stderr
    assert str(ROOT) not in listed.stdout and "snippets/" not in listed.stdout, listed.stdout
    exercise = sorted(EXERCISES)[0]
    copy = tmp_path / exercise_file(exercise).name
    copy.write_bytes(exercise_file(exercise).read_bytes())
    judged = judge_command(exercise, copy.name)
    assert judged.returncode == 1 and "Not yet" in judged.stdout, judged.stdout + judged.stderr


def test_the_solution_runs_in_its_own_folder(tmp_path, launch):
    """The child's working folder is the solution's: a notebook's `%%writefile` and a relative open() agree."""
    (tmp_path / "data.txt").write_text("here\n")
    solution = tmp_path / "reads.py"
    solution.write_text("print(open('data.txt').read().strip())\nraise SystemExit(3)\n")
    verdict = judge(sorted(EXERCISES)[0], solution, launch=launch)
    assert "| here" in verdict.text, verdict.text
