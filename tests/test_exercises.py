"""Every exercise: its reference solution passes, its starter fails with a readable verdict, a
typical wrong attempt gets a specific one, and both language pages offer it."""

from pathlib import Path

import pytest

from book_extensions import pages
from judge import ROOT, judge, load_exercises

EXERCISES = load_exercises()
WRONG = Path(__file__).parent / "exercises" / "wrong"


def test_there_are_at_least_ten_exercises():
    assert len(EXERCISES) >= 10, sorted(EXERCISES)


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_reference_solution_passes(exercise):
    verdict = judge(exercise, EXERCISES[exercise].solution)
    assert verdict.passed, "\n".join(verdict.lines)


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_starter_fails_readably(exercise, language):
    verdict = judge(exercise, EXERCISES[exercise].starter, language)
    text = "\n".join(verdict.lines)
    assert not verdict.passed, f"the starter of {exercise} already passes: nothing left to do\n{text}"
    assert "Traceback" not in text and "✘" in text, text


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_every_exercise_has_a_typical_wrong_attempt(exercise):
    """tests/exercises/wrong/<chapter>--<name>.py: a mistake a new reader makes."""
    attempt = WRONG / f"{exercise.replace('/', '--')}.py"
    assert attempt.is_file(), f"{pages.relative(attempt)} is missing"


@pytest.mark.parametrize("attempt", sorted(WRONG.glob("*.py")), ids=lambda path: path.stem)
def test_a_wrong_attempt_gets_its_specific_verdict(attempt):
    """Every file in tests/exercises/wrong/: <chapter>--<name>.py, the typical mistake, and
    <chapter>--<name>--<what-it-skips>.py, a solution that reaches the right numbers without the
    exercise's method. Its first line says `# expect: <words only that verdict contains>`."""
    exercise = "/".join(attempt.stem.split("--")[:2])
    assert exercise in EXERCISES, f"{pages.relative(attempt)} names no exercise"
    expected = attempt.read_text(encoding="utf-8").splitlines()[0].removeprefix("# expect:").strip()
    verdict = judge(exercise, attempt)
    text = "\n".join(verdict.lines)
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


def test_a_solution_that_hangs_or_floods_is_stopped(tmp_path):
    hang, flood = tmp_path / "hang.py", tmp_path / "flood.py"
    hang.write_text("while True:\n    pass\n")
    flood.write_text("while True:\n    print('x' * 100)\n")
    any_exercise = sorted(EXERCISES)[0]
    hung = judge(any_exercise, hang, timeout=5)
    assert not hung.passed and "did not finish" in "\n".join(hung.lines)
    flooded = judge(any_exercise, flood, "zh")
    assert not flooded.passed and "输出超过了" in "\n".join(flooded.lines)


def test_a_file_that_writes_the_result_itself_is_not_believed(tmp_path):
    """The reader's file runs in the child that writes the result, and can see where: the parent
    believes only a result that carries the token it handed the child on stdin."""
    forged = tmp_path / "forged.py"
    forged.write_text("import json, os, sys\n"
                      "passed = {'checks': [{'check': {'en': 'all', 'zh': 'all'}, 'ok': True}]}\n"
                      "json.dump(passed, open(sys.argv[4], 'w'))\n"
                      "os._exit(0)\n")
    verdict = judge(sorted(EXERCISES)[0], forged)
    assert not verdict.passed and "ended abruptly" in "\n".join(verdict.lines), verdict.lines


def test_unknown_exercise_and_missing_file_are_named():
    assert "--list" in "\n".join(judge("no/such-exercise", ROOT / "README.md").lines)
    assert "no-such-file.py" in "\n".join(judge(sorted(EXERCISES)[0], Path("no-such-file.py")).lines)
