"""The graph drawings come from the run: edit the snippet's forward and the drawing changes."""

import runpy

import measured
from book_extensions import pages

SNIPPET = pages.SNIPPETS / "graph-lifecycle" / "draw-graph.py"


def glued_drawings(path, monkeypatch):
    glued = {}
    monkeypatch.setattr(measured, "glue", lambda name, value, **kw: glued.__setitem__(name, value))
    runpy.run_path(str(path))
    return glued["graph_before_fig"]._repr_svg_(), glued["graph_after_fig"]._repr_svg_()


def test_drawing_shows_the_recorded_nodes(monkeypatch):
    before, after = glued_drawings(SNIPPET, monkeypatch)
    for node in ("SumBackward0", "ExpBackward0", "MulBackward0", "AccumulateGrad"):
        assert node in before
    assert "PowBackward0" not in before
    assert "result: [2]" in before and "freed" not in before
    assert "result: freed" in after


def test_changing_the_forward_changes_the_drawing(monkeypatch, tmp_path):
    source = SNIPPET.read_text(encoding="utf-8")
    assert "x * 3" in source
    scratch = tmp_path / "draw-graph.py"
    scratch.write_text(source.replace("x * 3", "x ** 3"), encoding="utf-8")
    before, _ = glued_drawings(scratch, monkeypatch)
    assert "PowBackward0" in before
