"""A snippet downloaded from a page runs with torch alone and prints what the book's run printed.

The link above each cell (book_extensions/snippet_cells.py) offers the snippet after stand-ins for
the helpers it imports (book_extensions/stand_ins.py). Each download of the built site runs here as
a reader's `python FILE` would, in an empty folder, with the book's helper module made unimportable,
and its output is compared with the snippet's reviewed snapshot (whose glued-value lines the book's
glue prints only in the tests).
"""

import os
import re
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

import book_settings
from book_extensions import pages, stand_ins
from snippet_runs import expected_snapshot, normalise, read_within_limits

pytestmark = pytest.mark.torch_independent  # what the downloads hold is the build's, the same on every torch

ENV = {**os.environ, **book_settings.RUN_ENV, "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"}  # as the launch fixture's
DOWNLOAD = re.compile(r'<a class="[^"]*snippet-download[^"]*"[^>]* href="([^"]+)"')
# Run as a reader's file: `measured` cannot be imported (the venv has the book installed), so only
# the stand-ins at the top of the download can provide it.
WITHOUT_THE_BOOK = """import runpy, sys
sys.modules["measured"] = None
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def downloads(site: Path, language: str) -> dict[str, Path]:
    """{snippet path below snippets/: the file a reader downloads} for every cell of the language's pages
    (a page's snippets are in the folder of its name, snippets/<page>/)."""
    found = {}
    for html in sorted((site / language).glob("*.html")):
        for href in DOWNLOAD.findall(html.read_text(encoding="utf-8")):
            file = site / language / unquote(href)
            found[f"{html.stem}/{file.name}"] = file
    return found


def test_both_languages_offer_the_same_downloads(site):
    zh, en = downloads(site, "zh"), downloads(site, "en")
    assert zh.keys() == en.keys() and zh, (sorted(zh), sorted(en))
    differing = [name for name in zh if zh[name].read_bytes() != en[name].read_bytes()]
    assert not differing, f"the zh and en downloads of these snippets differ: {differing}"


def test_every_download_runs_with_torch_alone(site, launch, tmp_path):
    wrapper = tmp_path / "without_the_book.py"
    wrapper.write_text(WITHOUT_THE_BOOK)
    failures = []
    found = downloads(site, "en")
    for name, file in sorted(found.items()):
        snippet = pages.SNIPPETS / name
        folder = tmp_path / name.replace("/", "--")
        folder.mkdir()
        with launch([sys.executable, str(wrapper), str(file)], env=ENV, cwd=folder) as process:
            process.stdin.close()
            output = normalise(read_within_limits(process, name))
        expected = [
            line
            for line in expected_snapshot(snippet).read_text(encoding="utf-8").splitlines()
            if not line.startswith("[glue]")
        ]
        if process.returncode != 0 or output.splitlines() != expected:
            failures.append(f"{pages.relative(file)} ({name}): exit {process.returncode}\n{output[-2000:]}")
    assert len(found) > 50, f"only {len(found)} downloads found: the links' markup changed?"
    assert not failures, "\n\n".join(failures)


def test_a_download_that_draws_asks_for_matplotlib_before_it_runs(site, launch, tmp_path):
    """Without matplotlib, a download whose snippet draws a figure stops at once with a line saying
    what to install, having printed nothing of the snippet's own output."""
    wrapper = tmp_path / "without_matplotlib.py"
    wrapper.write_text(f'import sys\nsys.modules["matplotlib"] = None\n{WITHOUT_THE_BOOK}')
    drawing = {
        name: file
        for name, file in downloads(site, "en").items()
        if "figure" in stand_ins.helper_imports(pages.SNIPPETS / name)
    }
    assert drawing, "no download draws a figure: the check below checks nothing"
    wrong = []
    for name, file in sorted(drawing.items()):
        with launch([sys.executable, str(wrapper), str(file)], env=ENV, cwd=tmp_path) as process:
            process.stdin.close()
            output = read_within_limits(process, name)
        if process.returncode == 0 or output.strip() != stand_ins.MATPLOTLIB_MESSAGE:
            wrong.append(f"{name}: exit {process.returncode}, output {output[-300:]!r}")
    assert not wrong, "\n".join(wrong)
