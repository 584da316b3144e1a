"""Every snippet, run as `python snippets/<chapter>/<idea>.py`, prints its reviewed snapshot.

The snapshot (tests/snapshots/<chapter>/<idea>.txt) holds the normalised stdout and stderr,
glued values included. After reviewing a change: `nox -s tests -- --force-regen`, then read
`git diff tests/snapshots` before committing it.
"""

import pytest

import pages
from snippet_runs import all_loaded_cells, run_snippet, snapshot_path

CELLS = all_loaded_cells()


@pytest.mark.parametrize("snippet", sorted(CELLS), ids=lambda p: pages.relative(p))
def test_snippet_output_matches_snapshot(snippet, file_regression):
    run = run_snippet(snippet)
    raises = {cell.raises for cell in CELLS[snippet]}
    assert len(raises) == 1, f"{pages.relative(snippet)} is tagged raises-exception by some pages only"
    if raises.pop():
        assert run.returncode != 0 and "Traceback" in run.output, (
            f"{pages.relative(snippet)} is loaded by a cell tagged raises-exception but ran without raising")
    else:
        assert run.returncode == 0, f"{pages.relative(snippet)} failed:\n{run.output}"
    file_regression.check(run.output, fullpath=snapshot_path(snippet))


def test_every_snapshot_belongs_to_a_snippet():
    expected = {snapshot_path(snippet) for snippet in CELLS}
    stale = sorted(pages.relative(p) for p in snapshot_path(pages.SNIPPETS / "x.py").parent.rglob("*.txt")
                   if p not in expected)
    assert not stale, f"snapshots of snippets no page loads (delete them): {stale}"
