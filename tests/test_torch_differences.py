"""Where a supported torch prints something else, the built page says so, from the reviewed
snapshots; the drift report and the appendix name the same snippets.

What the folds and the glued-value notes say is checked on a fixture whose expected page was
reviewed once (tests/fixtures/torch-differences: a page, its snippets, their snapshots on four
torches, expected.txt); on the book's pages, that each cell's folds name exactly the versions whose
snapshot files, read here without the build's code, print other lines than this torch's.
"""

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import book_settings
from book_extensions import pages
from book_extensions import snapshots
from scratch_book import build, scratch_book

PAGES = [(language, name, page) for language in pages.LANGUAGES for name, page in pages.book_pages(language).items()]
IDS = [f"{language}/{name}" for language, name, _ in PAGES]
THIS = snapshots.compared_torch()
FIXTURE = Path(__file__).parent / "fixtures" / "torch-differences"
FIXTURE_TORCHES = ("2.6.0", "2.13.0", "2.14.1", "2.15.0")  # its snapshots' versions, whatever the book supports
FIXTURE_THIS = "2.13.0"


def built(site, language, name) -> str:
    return (site / language / name.replace(".md", ".html")).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def fixture_page(tmp_path_factory) -> BeautifulSoup:
    """The fixture page, built in English by the book's Sphinx command with its own snapshots and torches."""
    root = scratch_book(
        tmp_path_factory.mktemp("checkout"),
        {"differences.md": (FIXTURE / "page.md").read_text(encoding="utf-8")},
        {path.name: path.read_text(encoding="utf-8") for path in (FIXTURE / "snippets").glob("*.py")},
    )
    shutil.copytree(FIXTURE / "snapshots", root / "tests" / "snapshots" / "demo")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        re.sub(
            r"(?m)^torch-versions = .*$",
            f"torch-versions = {json.dumps(FIXTURE_TORCHES)}",
            pyproject.read_text(encoding="utf-8"),
        ),
        encoding="utf-8",
    )
    done = build(root, "en", env={**os.environ, "BOOK_SNAPSHOT_TORCH": FIXTURE_THIS})
    assert done.returncode == 0, done.stdout
    return BeautifulSoup((root / "build/en/html/differences.html").read_text(encoding="utf-8"), "html.parser")


def shown_differences(page: BeautifulSoup) -> str:
    """What the page says of other torches, as text: each cell's snippet and its folds (summary,
    explanation, diff), then each paragraph with a glued value, its notes in [brackets]."""
    lines = []
    for cell in page.select("div.cell"):
        lines.append(cell.select_one(".snippet-source").get_text())
        for fold in cell.select("details.torch-difference"):
            lines += [
                f"  {fold.summary.get_text()}",
                f"  {fold.p.get_text()}",
                *(f"  {line}" for line in fold.pre.get_text().splitlines()),
            ]
    for paragraph in page.select("p:has(> span.pasted-text)"):
        for note in paragraph.select("span.torch-glue-difference"):
            note.string = f"[{note.get_text()}]"
        lines.append(paragraph.get_text())
    return "\n".join(lines) + "\n"


@pytest.mark.torch_independent
def test_the_fixture_page_shows_its_reviewed_differences(fixture_page):
    """Folds under the cells whose printed lines differ, one per distinct output, naming its torches
    and diffing its lines; none for an output that differs only in glued values; after a glued
    value, each other value as the role formats it, none where the format hides the difference or
    the value is a timing."""
    expected = (FIXTURE / "expected.txt").read_text(encoding="utf-8")
    shown = shown_differences(fixture_page)
    if shown != expected:
        diff = difflib.unified_diff(expected.splitlines(), shown.splitlines(), "expected.txt", "the page", lineterm="")
        pytest.fail(
            "the fixture page differs from tests/fixtures/torch-differences/expected.txt:\n" + "\n".join(diff),
            pytrace=False,
        )


def printed_lines(snippet: Path, torch: str) -> list[str]:
    """The lines of the torch's own snapshot of the snippet, else of the shared one, but its glued values."""
    shared = snapshots.SNAPSHOTS / snippet.relative_to(pages.SNIPPETS).with_suffix(".txt")
    own = shared.with_suffix(f".torch-{torch}.txt")
    text = (own if own.is_file() else shared).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if not line.startswith("[glue] ")]


@pytest.mark.parametrize(("language", "name", "page"), PAGES, ids=IDS)
def test_each_cell_names_the_torches_that_print_other_lines(site, language, name, page):
    cells = BeautifulSoup(built(site, language, name), "html.parser").select("div.cell")
    assert len(cells) == len(page.code_cells), (
        f"{language}/{name}: {len(cells)} cells, the source {len(page.code_cells)}"
    )
    for cell, shown in zip(page.code_cells, cells):
        ours = printed_lines(cell.snippet, THIS)
        expected = sorted(torch for torch in book_settings.TORCH_VERSIONS if printed_lines(cell.snippet, torch) != ours)
        named = [
            re.findall(r"\d+\.\d+\.\d+", fold.summary.get_text()) for fold in shown.select("details.torch-difference")
        ]
        assert sorted(sum(named, [])) == expected, (
            f"{language}/{name}, the cell at {cell.where}: its folds name {named}, its snapshots differ on {expected}"
        )


def test_the_appendix_links_every_reviewed_difference(site):
    default = book_settings.DEFAULT_TORCH
    overrides = sorted(snapshots.SNAPSHOTS.rglob("*.torch-*.txt"))
    assert overrides, "no version has its own snapshot: nothing to check here"
    for language in pages.LANGUAGES:
        appendix = built(site, language, "verification.md")
        for override in overrides:
            torch = override.name.rsplit(".torch-", 1)[1].removesuffix(".txt")
            idea = override.relative_to(snapshots.SNAPSHOTS).as_posix().rsplit(".torch-", 1)[0]
            anchor = re.sub(r"[^a-z0-9]+", "-", f"diff {idea}.py torch {torch}".lower()).strip("-")
            assert f'id="{anchor}"' in appendix, (
                f"{language}/verification.html has no reviewed difference {anchor} ({default} → {torch})"
            )


@pytest.mark.parametrize(("language", "name", "page"), PAGES, ids=IDS)
@pytest.mark.torch_independent
def test_each_torch_versions_claim_still_holds_on_some_supported_torch(language, name, page):
    from book_extensions.torch_differences import versions_printing

    for line, claim in page.version_claims:
        assert versions_printing(claim)[1], f"docs/{language}/{name}:{line}: no supported torch prints {claim!r}"


def write_record(folder: Path, torch: str, outputs: dict[str, str]) -> None:
    snippets = {name: {"status": "passed", "output": output} for name, output in outputs.items()}
    (folder / f"torch-{torch}.json").write_text(json.dumps({"torch": torch, "snippets": snippets}))


@pytest.mark.torch_independent
def test_drift_lists_exactly_the_differing_snippets_and_whether_each_is_reviewed(tmp_path):
    reviewed = next(snapshots.SNAPSHOTS.rglob("*.torch-*.txt"))
    torch = reviewed.name.rsplit(".torch-", 1)[1].removesuffix(".txt")
    with_own = "snippets/" + reviewed.relative_to(snapshots.SNAPSHOTS).as_posix().rsplit(".torch-", 1)[0] + ".py"
    write_record(tmp_path, "0.0.1", {with_own: "a\n", "snippets/x/same.py": "s\n", "snippets/x/new.py": "b\n"})
    write_record(tmp_path, torch, {with_own: "A\n", "snippets/x/same.py": "s\n", "snippets/x/new.py": "B\n"})
    report = subprocess.run(
        [sys.executable, "tests/drift.py", str(tmp_path), "0.0.1", torch],
        cwd=pages.ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "3 snippets compared, 2 differ" in report
    assert f"  {with_own}: reviewed" in report
    assert "  snippets/x/new.py: not reviewed" in report
    assert "snippets/x/same.py:" not in report


@pytest.mark.torch_independent
def test_the_canary_report_shows_drift_without_failing_and_fails_on_a_broken_snippet(tmp_path):
    snippet = "snippets/verification/torch-version.py"
    snapshot = snapshots.snapshot_path(pages.ROOT / snippet)
    entry = {"snapshot": pages.relative(snapshot), "output": snapshot.read_text(encoding="utf-8") + "a new line\n"}
    record = tmp_path / "torch-9.9.9.json"

    def report(status):
        record.write_text(
            json.dumps({"torch": "9.9.9", "snapshots_of": "2.15.0", "snippets": {snippet: {**entry, "status": status}}})
        )
        return subprocess.run(
            [sys.executable, "tests/drift.py", "--record", str(record)], cwd=pages.ROOT, capture_output=True, text=True
        )

    drifted = report("differs")
    assert drifted.returncode == 0 and "+a new line" in drifted.stdout and "1 differ, 0 failed" in drifted.stdout
    broken = report("failed")
    assert broken.returncode == 2 and "FAILED to run" in broken.stdout
