"""The exercise notebooks (book_extensions/exercises.py): one per exercise and language, offered on
its chapter page, holding the statement, how to use it, the judge's install, the starter and the
judge cell; run top to bottom on the starter, it prints the judge's failing verdict in its language."""

from __future__ import annotations

import html
import re

import nbformat
import pytest
from nbclient import NotebookClient

import book_settings
from book_extensions import exercises, pages
from book_settings import exercise_file
from exercise_judge import exercises as judged_exercises
from exercise_judge import limits
from test_notebooks import MYST_LEFT

EXERCISES = sorted(judged_exercises())
CASES = [(language, exercise) for language in pages.LANGUAGES for exercise in EXERCISES]
NOT_YET = {"en": "Not yet: check", "zh": "还没通过：第"}


def notebook_of(site, language: str, exercise: str) -> nbformat.NotebookNode:
    path = site / language / exercises.FOLDER / exercises.notebook_name(exercise)
    assert path.is_file(), f"{pages.relative(path)} was not built"
    return nbformat.read(path, as_version=4)


@pytest.mark.parametrize("language", pages.LANGUAGES)
def test_there_is_a_notebook_for_each_exercise_and_no_other(site, language):
    found = sorted(path.name for path in (site / language / exercises.FOLDER).glob("*.ipynb"))
    assert found == sorted(exercises.notebook_name(exercise) for exercise in EXERCISES)


@pytest.mark.parametrize(("language", "exercise"), CASES, ids=[f"{lang}-{ex}" for lang, ex in CASES])
def test_the_notebook_has_its_cells(site, language, exercise):
    notebook = notebook_of(site, language, exercise)
    nbformat.validate(notebook)
    cells = {cell["id"]: cell for cell in notebook.cells}
    assert list(cells) == list(exercises.CELL_IDS)
    assert notebook.metadata["autograd_measured"] == {"exercise": exercise, "language": language}
    statement = cells["statement"].source
    assert statement.startswith("# ") and len(statement) > 200, statement[:300]
    left = {kind: pattern.findall(statement) for kind, pattern in MYST_LEFT.items() if pattern.search(statement)}
    assert not left, f"MyST left in the statement of {language}/{exercise}: {left}"
    name = exercise_file(exercise).name
    assert f"python -m exercise_judge {exercise} {name}" in cells["how-to"].source
    install = cells["install-judge"].source
    assert (
        f"--find-links {book_settings.SITE_URL}{book_settings.JUDGE_SITE_FOLDER}/ {book_settings.JUDGE_DISTRIBUTION}"
        in install
        and 'find_spec("exercise_judge") is None' in install
    )
    first, comment, code = cells["solution"].source.split("\n", 2)
    assert first == f"%%writefile {name}" and comment.startswith("# ")
    assert code == exercise_file(exercise).read_text(encoding="utf-8").rstrip()
    assert f"judge({exercise!r}, {name!r}, language={language!r})" in cells["judge"].source
    assert all(
        cell.cell_type == "markdown" or (not cell.outputs and cell.execution_count is None) for cell in notebook.cells
    )


@pytest.mark.parametrize(("language", "exercise"), CASES, ids=[f"{lang}-{ex}" for lang, ex in CASES])
def test_the_chapter_page_offers_its_notebook(site, language, exercise):
    chapter = exercise.split("/")[0]
    page = (site / language / f"{chapter}.html").read_text(encoding="utf-8")
    assert re.search(rf'href="{exercises.FOLDER}/{re.escape(exercises.notebook_name(exercise))}"', page), (
        f"{language}/{chapter}.html does not link its exercise notebook"
    )
    assert "Colab" in page
    starter = book_settings.exercise_file(exercise).name
    assert re.search(rf'class="reference download internal"[^>]*href="[^"]*/{re.escape(starter)}"', page), (
        f"{language}/{chapter}.html does not offer {starter} for download"
    )
    command = f"python -m exercise_judge {exercise} {starter}" + (" --lang zh" if language == "zh" else "")
    shown = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert command in shown, f"{language}/{chapter}.html does not show the command `{command}`"
    install = f"pip install --find-links {book_settings.SITE_URL}{book_settings.JUDGE_SITE_FOLDER}/ {book_settings.JUDGE_DISTRIBUTION}"
    assert install in shown, f"{language}/{chapter}.html does not say how to install the judge: `{install}`"


def run_all(notebook, folder) -> nbformat.NotebookNode:
    """Jupyter's "Run all" in a fresh kernel whose working folder is the notebook's."""
    client = NotebookClient(
        notebook,
        timeout=limits.TIMEOUT_SECONDS * 2,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
        shutdown_kernel="immediate",
    )
    return client.execute()


def printed(cell) -> str:
    return "".join(output.get("text", "") for output in cell.outputs if output.output_type == "stream")


# With the default torch only: what the notebook adds to the judge's own tests (which run on every torch)
# is its cells: writing the file, finding the installed judge, the verdict's language.
@pytest.mark.torch_independent
@pytest.mark.parametrize("exercise", EXERCISES)
def test_run_on_the_starter_the_notebook_prints_the_failing_verdict(site, tmp_path, exercise):
    """Every exercise in the book's first language, and its first exercise in the other too."""
    languages = list(pages.LANGUAGES) if exercise == EXERCISES[0] else list(pages.LANGUAGES)[:1]
    for language in languages:
        folder = tmp_path / language
        folder.mkdir()
        ran = run_all(notebook_of(site, language, exercise), folder)
        cells = {cell["id"]: cell for cell in ran.cells}
        assert printed(cells["install-judge"]) == "", printed(cells["install-judge"])  # installed: nothing to do
        written = (folder / exercise_file(exercise).name).read_text(encoding="utf-8")
        assert written.rstrip() == cells["solution"].source.split("\n", 1)[1].rstrip()
        verdict = printed(cells["judge"])
        assert NOT_YET[language] in verdict and "✘" in verdict and "Traceback" not in verdict, verdict
