"""Where a supported torch prints something else, the built page says so, from the reviewed
snapshots; the drift report and the appendix name the same snippets."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import book_settings
from book_extensions import pages
from book_extensions import snapshots
from myst_nb.core.variables import format_plain_text

SUMMARY = re.compile(r'<details class="torch-difference"><summary>(.*?)</summary>')
GLUE_NOTE = re.compile(r'<span class="torch-glue-difference">(.*?)</span>')
PAGES = [(language, name, page) for language in pages.LANGUAGES for name, page in pages.book_pages(language).items()]
IDS = [f"{language}/{name}" for language, name, _ in PAGES]
THIS = snapshots.compared_torch()


def built(site, language, name) -> str:
    return (site / language / name.replace(".md", ".html")).read_text(encoding="utf-8")


@pytest.mark.parametrize(("language", "name", "page"), PAGES, ids=IDS)
def test_each_cell_that_differs_on_another_torch_says_so(site, language, name, page):
    expected = [", ".join(versions) for snippet in page.snippets for versions, _ in snapshots.differences(snippet, THIS)]
    shown = [re.search(r"\d+\.\d+\.\d+(?:, \d+\.\d+\.\d+)*", summary).group(0)
             for summary in SUMMARY.findall(built(site, language, name))]
    assert shown == expected, f"{language}/{name}: the folded differences name {shown}, the snapshots say {expected}"


@pytest.mark.parametrize(("language", "name", "page"), PAGES, ids=IDS)
def test_each_glued_value_that_differs_on_another_torch_shows_that_value(site, language, name, page):
    by_version = snapshots.glue_by_version(page.snippets)
    expected = []
    for role, key, spec in page.glue_refs:
        ours = by_version[THIS].get(key)
        if role != "text" or ours is None:
            continue
        spec = spec or "s"
        others = {}
        for torch, values in by_version.items():
            if torch != THIS and values.get(key) is not None:
                shown = format_plain_text(values[key], spec)
                if shown != format_plain_text(ours, spec):
                    others.setdefault(shown, []).append(torch)
        expected += [(", ".join(versions), value) for value, versions in others.items()]
    notes = GLUE_NOTE.findall(built(site, language, name))
    assert len(notes) == len(expected), f"{language}/{name}: {notes} for the snapshots' {expected}"
    for note, (versions, value) in zip(notes, expected):
        assert versions in note and value in note, f"{language}/{name}: {note!r} should name {versions}: {value}"


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
            assert f'id="{anchor}"' in appendix, \
                f"{language}/verification.html has no reviewed difference {anchor} ({default} → {torch})"


@pytest.mark.parametrize(("language", "name", "page"), PAGES, ids=IDS)
def test_each_torch_versions_claim_still_holds_on_some_supported_torch(language, name, page):
    from book_extensions.torch_differences import versions_printing

    for line, claim in page.version_claims:
        assert versions_printing(claim)[1], f"docs/{language}/{name}:{line}: no supported torch prints {claim!r}"


def write_record(folder: Path, torch: str, outputs: dict[str, str]) -> None:
    snippets = {name: {"status": "passed", "output": output} for name, output in outputs.items()}
    (folder / f"torch-{torch}.json").write_text(json.dumps({"torch": torch, "snippets": snippets}))


def test_drift_lists_exactly_the_differing_snippets_and_whether_each_is_reviewed(tmp_path):
    reviewed = next(snapshots.SNAPSHOTS.rglob("*.torch-*.txt"))
    torch = reviewed.name.rsplit(".torch-", 1)[1].removesuffix(".txt")
    with_own = "snippets/" + reviewed.relative_to(snapshots.SNAPSHOTS).as_posix().rsplit(".torch-", 1)[0] + ".py"
    write_record(tmp_path, "0.0.1", {with_own: "a\n", "snippets/x/same.py": "s\n", "snippets/x/new.py": "b\n"})
    write_record(tmp_path, torch, {with_own: "A\n", "snippets/x/same.py": "s\n", "snippets/x/new.py": "B\n"})
    report = subprocess.run([sys.executable, "tests/drift.py", str(tmp_path), "0.0.1", torch], cwd=pages.ROOT,
                            capture_output=True, text=True, check=True).stdout
    assert "3 snippets compared, 2 differ" in report
    assert f"  {with_own}: reviewed" in report
    assert "  snippets/x/new.py: not reviewed" in report
    assert "snippets/x/same.py:" not in report


def test_the_canary_report_shows_drift_without_failing_and_fails_on_a_broken_snippet(tmp_path):
    snippet = "snippets/verification/torch-version.py"
    snapshot = snapshots.snapshot_path(pages.ROOT / snippet)
    entry = {"snapshot": pages.relative(snapshot), "output": snapshot.read_text(encoding="utf-8") + "a new line\n"}
    record = tmp_path / "torch-9.9.9.json"

    def report(status):
        record.write_text(json.dumps({"torch": "9.9.9", "snapshots_of": "2.15.0",
                                      "snippets": {snippet: {**entry, "status": status}}}))
        return subprocess.run([sys.executable, "tests/drift.py", "--record", str(record)], cwd=pages.ROOT,
                              capture_output=True, text=True)

    drifted = report("differs")
    assert drifted.returncode == 0 and "+a new line" in drifted.stdout and "1 differ, 0 failed" in drifted.stdout
    broken = report("failed")
    assert broken.returncode == 2 and "FAILED to run" in broken.stdout
