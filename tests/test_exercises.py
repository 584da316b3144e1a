"""Every exercise: its reference solution passes, its starter fails with a readable verdict, a
typical wrong attempt gets a specific one, and both language pages offer it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from book_extensions import pages
from book_settings import ROOT
from exercise_judge import exercises, judge
from exercise_judge.runner import TIMEOUT_SECONDS, run
from exercise_judge.verdict import LANGUAGES, report

EXERCISES = exercises()
WRONG = Path(__file__).parent / "wrong_attempts"


def test_there_are_at_least_ten_exercises():
    assert len(EXERCISES) >= 10, sorted(EXERCISES)


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_reference_solution_passes(exercise, launch):
    verdict = judge(exercise, EXERCISES[exercise].solution, launch=launch)
    assert verdict.passed, verdict.text


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_starter_fails_readably(exercise, launch):
    """The starter runs once (what it does is the same whatever the reader's language); the verdict
    on that run, in each language, fails without a traceback."""
    starter = EXERCISES[exercise].starter
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


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_both_chapter_pages_offer_the_exercise(exercise):
    found = EXERCISES[exercise]
    for language in pages.LANGUAGES:
        page = pages.book_pages(language)[f"{found.chapter}.md"]
        assert found.starter in page.references and found.solution in page.references, (
            f"docs/{language}/{found.chapter}.md must link {pages.relative(found.starter)} for download and "
            f"show {pages.relative(found.solution)}")
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


def test_a_file_that_writes_the_result_itself_is_not_believed(tmp_path, launch):
    """The reader's file runs in the child that writes the result, and can see where: the parent
    believes only a result that carries the token it handed the child on stdin."""
    forged = tmp_path / "forged.py"
    forged.write_text("import json, os, sys\n"
                      "passed = {'checks': [{'check': {'en': 'all', 'zh': 'all'}, 'ok': True}]}\n"
                      "json.dump(passed, open(sys.argv[-1], 'w'))\n"
                      "os._exit(0)\n")
    verdict = judge(sorted(EXERCISES)[0], forged, launch=launch)
    assert not verdict.passed and "ended abruptly" in verdict.text, verdict.text


def test_unknown_exercise_and_missing_file_are_named():
    assert "--list" in judge("no/such-exercise", ROOT / "README.md").text
    assert "no-such-file.py" in judge(sorted(EXERCISES)[0], Path("no-such-file.py")).text


@pytest.mark.torch_independent
def test_the_command_line_runs_in_the_venv_without_nox():
    """`python -m exercise_judge`, as a reader runs it in the venv from the repository root: without
    the PYTHONPATH=conf that nox sets, it lists every exercise and judges a file."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    def judge_command(*args):
        return subprocess.run([sys.executable, "-m", "exercise_judge", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True)
    listed = judge_command("--list", "--lang", "zh")
    assert listed.returncode == 0 and all(id in listed.stdout for id in EXERCISES), listed.stdout + listed.stderr
    exercise = sorted(EXERCISES)[0]
    judged = judge_command(exercise, str(EXERCISES[exercise].starter.relative_to(ROOT)))
    assert judged.returncode == 1 and "Not yet" in judged.stdout, judged.stdout + judged.stderr
