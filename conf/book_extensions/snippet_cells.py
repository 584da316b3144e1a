"""Code cells load snippets: check them, rebuild when a snippet changes, name the failing line.

- A page that breaks a rule of ``pages.Page.problems`` (inline code, a missing ``:load:`` file,
  code cells without notebook front matter, …) fails the build with page and line. Its code
  cells are blanked before myst-nb reads it, so the build reports every page, then stops.
- Each loaded snippet, and the helper module snippets/measured.py, is a dependency of its page:
  myst-nb does not record ``:load:`` files (MyST-NB #621, #299), so without this an edited
  snippet leaves the old output in place. (The execution cache is keyed by the helpers too.)
- When a cell raises, myst-nb names only the page; this names ``snippets/<path>.py:<line>``.
- Above each cell, the snippet's path links to a download of the file, so a reader can run
  it exactly as the book did.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from myst_nb.sphinx_ import NbMetadataCollector
from sphinx import addnodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from book_extensions import ENV_VERSION
from book_extensions import pages

logger = logging.getLogger(__name__)

ANSI = re.compile(r"\x1b\[[0-9;]*m")
IPYTHON_FRAME = re.compile(r"Cell In\[(\d+)\], line (\d+)")


def check_page(app, docname, source):
    page = pages.page_of(app.env, docname)
    problems = page.problems()
    for line, message in problems:
        logger.error(message, location=(docname, line), type="snippet", subtype="page")
    for snippet in page.snippets:
        if snippet.is_file():
            app.env.note_dependency(str(snippet))
    if page.code_cells:  # every snippet may import the helpers
        app.env.note_dependency(str(page.root / "snippets" / "measured.py"))
    if problems:
        source[0] = _blank_code_cells(source[0], page)


def _blank_code_cells(text, page):
    """Keep the line numbers, drop the cells: myst-nb then has nothing broken to trip over."""
    lines = text.split("\n")
    for cell in page.code_cells:
        lines[cell.line - 1:cell.end_line] = [""] * (cell.end_line - cell.line + 1)
    return "\n".join(lines)


def name_failing_snippet(app, doctree):
    docname = app.env.docname
    data = NbMetadataCollector.get_exec_data(app.env, docname) or {}
    if not data.get("traceback"):
        return
    traceback = ANSI.sub("", data["traceback"])
    frames = IPYTHON_FRAME.findall(traceback)
    error = next((line for line in reversed(traceback.splitlines()) if line.strip()), "")
    cells = pages.page_of(app.env, docname).code_cells
    if not frames:
        logger.error(f"executing the page failed: {error}", location=docname, type="snippet", subtype="exec")
        return
    # IPython names a cell by its execution count, which nbclient gives the cells in order.
    count, line = (int(n) for n in frames[-1])
    cell = cells[count - 1] if 0 < count <= len(cells) else None
    where = f"{pages.relative(cell.snippet)}:{line}" if cell and cell.snippet else docname
    report = Path(app.outdir, "reports", f"{docname}.err.log")
    logger.error(
        f"{error}\n  raised by this snippet line, in the code cell at {cell.where if cell else docname}"
        f" (full traceback: {pages.relative(report)}); tag the cell `raises-exception` if it is meant to raise",
        location=where, type="snippet", subtype="exec",
    )


class SnippetDownloads(SphinxTransform):
    """Runs after parsing and before Sphinx collects the page's downloads (doctree-read)."""

    default_priority = 500

    def apply(self):
        cells = [node for node in self.document.findall(nodes.container) if "cell" in node["classes"]]
        code_cells = pages.page_of(self.env).code_cells
        if len(cells) != len(code_cells):
            return  # a broken page: snippet_cells has already reported it
        for cell, code_cell in zip(cells, code_cells):
            link = addnodes.download_reference("", "", refdoc=self.env.docname, reftarget=code_cell.load,
                                               refexplicit=True, classes=["snippet-download"])
            link += nodes.literal(text=pages.relative(code_cell.snippet))
            cell.insert(0, nodes.paragraph("", "", link, classes=["snippet-source"]))


def setup(app):
    app.add_transform(SnippetDownloads)
    app.connect("source-read", check_page)
    app.connect("doctree-read", name_failing_snippet)
    return {"parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": ENV_VERSION}
