"""Every snippet, run as `python snippets/<chapter>/<idea>.py`, prints its reviewed snapshot.

The snapshot (tests/snapshots/<chapter>/<idea>.txt) holds the normalised stdout and stderr,
glued values included, and is shared by every torch version. A version whose output really
differs gets its own reviewed <idea>.torch-<version>.txt next to it (a thin layer over
pytest-regressions, which knows one expected file per check). After reviewing a change, the default
torch's `nox -s "tests(torch-<version>)" -- --force-regen` rewrites the shared snapshot and another
torch's writes its own file if it differs (CONTRIBUTING.md); read `git diff tests/snapshots` before
committing it.
"""

import pytest

import book_settings
from book_extensions import pages
from snippet_runs import (
    DEFAULT_TORCH,
    SNAPSHOTS,
    TORCH,
    all_loaded_cells,
    expected_snapshot,
    run_snippet,
    snapshot_path,
    snapshot_to_write,
)

CELLS = all_loaded_cells()


@pytest.mark.parametrize("snippet", sorted(CELLS), ids=lambda p: pages.relative(p))
def test_snippet_output_matches_snapshot(snippet, file_regression, request, records, launch):
    name = pages.relative(snippet)
    run = run_snippet(snippet, launch)
    raises = {cell.raises for cell in CELLS[snippet]}
    assert len(raises) == 1, f"{name} is tagged raises-exception by some pages only"
    if raises.pop():
        ran_as_tagged = run.returncode != 0 and "Traceback" in run.output
        message = f"{name} is loaded by a cell tagged raises-exception but ran without raising"
    else:
        ran_as_tagged = run.returncode == 0
        message = f"{name} failed under torch {TORCH}:\n{run.output}"
    if not ran_as_tagged:
        records.add(run, "failed")
        pytest.fail(message)
    regenerating = request.config.getoption("force_regen")
    snapshot = snapshot_to_write(snippet, run.output) if regenerating else expected_snapshot(snippet)
    existed = snapshot.is_file()
    try:
        file_regression.check(run.output, fullpath=snapshot)
        difference = None
    except (AssertionError, pytest.fail.Exception) as error:
        difference = str(error)
    records.add(run, "differs" if difference else "passed")
    if difference and not existed:
        pytest.fail(
            f"{name} had no snapshot: wrote {pages.relative(snapshot)}; read it, commit it if right", pytrace=False
        )
    if difference:
        pytest.fail(
            f"{name} under torch {TORCH}: its output differs from {pages.relative(snapshot)}"
            f"{' (now rewritten: review git diff)' if regenerating else ''}\n{difference}",
            pytrace=False,
        )


def test_every_snapshot_belongs_to_a_snippet_and_a_supported_torch():
    others = [torch for torch in book_settings.TORCH_VERSIONS if torch != DEFAULT_TORCH]
    expected = {snapshot_path(snippet, torch) for snippet in CELLS for torch in [None, *others]}
    stale = sorted(pages.relative(p) for p in SNAPSHOTS.rglob("*.txt") if p not in expected)
    assert not stale, f"snapshots of no loaded snippet or no supported non-default torch (delete them): {stale}"


def test_a_version_snapshot_records_a_real_difference():
    same = [
        pages.relative(override)
        for snippet in CELLS
        for torch in book_settings.TORCH_VERSIONS
        if (override := snapshot_path(snippet, torch)).is_file()
        and override.read_text() == snapshot_path(snippet).read_text()
    ]
    assert not same, f"these version snapshots equal the shared one (delete them): {same}"


def test_the_default_torch_has_no_version_snapshot():
    own = sorted(pages.relative(p) for p in SNAPSHOTS.rglob(f"*.torch-{DEFAULT_TORCH}.txt"))
    assert not own, f"torch {DEFAULT_TORCH} is the default: its output is the shared snapshot, not {own}"
