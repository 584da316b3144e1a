"""Code cells load snippets: check them, rebuild when a snippet changes, name the failing line.

- A page that breaks a rule of ``pages.Page.problems`` (inline code, a missing ``:load:`` file,
  code cells without notebook front matter, …) fails the build with page and line. Its code
  cells are blanked before myst-nb reads it, so the build reports every page, then stops.
- Each loaded snippet, and the helper module snippets/measured.py, is a dependency of its page:
  myst-nb does not record ``:load:`` files (MyST-NB #621, #299), so without this an edited
  snippet leaves the old output in place. (The execution cache is keyed by the helpers too.)
- When a cell raises, myst-nb names only the page; this names ``snippets/<path>.py:<line>``.
- Above each cell, the snippet's path links to a download of the file, so a reader can run
  it exactly as the book did: the file, after stand-ins for the helpers it imports
  (``stand_ins``), so that it runs with torch alone. Rendered cells are matched with code cells by
  order, so a page where myst-nb rendered another number of cells fails the build instead of
  losing its links.
- In the rendered code, the lines that only hand numbers to the prose (``glue(...)`` calls and an
  import of glue alone) are marked as Sphinx marks emphasized lines, and book.css dims them.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from docutils import nodes
from exercise_judge import limits
from myst_nb.sphinx_ import NbMetadataCollector
from sphinx import addnodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from book_extensions import ENV_VERSION
from book_extensions import pages
from book_extensions.stand_ins import HelperImportError, standalone

logger = logging.getLogger(__name__)

ANSI = re.compile(r"\x1b\[[0-9;]*m")
OUTPUT_LIMIT_ERROR = limits.TooLoud.__name__  # what the kernel raises (conf/kernel_startup.py)
TIMEOUT_PREVIEW = re.compile(r"\n-{19}\n(.*)\n-{19}\n", re.DOTALL)  # nbclient's preview of the timed-out cell
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
        lines[cell.line - 1 : cell.end_line] = [""] * (cell.end_line - cell.line + 1)
    return "\n".join(lines)


def parse_traceback(traceback: str) -> tuple[str, tuple[int, int] | None]:
    """The error line of a failed run, and (execution count, line in the cell) of the innermost
    cell frame, or None. IPython's traceback format is not an API: the canary
    ``upstream.WORKAROUNDS["ipython-traceback"]`` runs a real kernel through this."""
    traceback = ANSI.sub("", traceback)
    frames = IPYTHON_FRAME.findall(traceback)
    error = next((line for line in reversed(traceback.splitlines()) if line.strip()), "")
    return error, (tuple(int(n) for n in frames[-1]) if frames else None)


def name_failing_snippet(app, doctree):
    docname = app.env.docname
    data = NbMetadataCollector.get_exec_data(app.env, docname) or {}
    if not data.get("traceback"):
        return
    cells = pages.page_of(app.env, docname).code_cells
    if data.get("error") == "CellTimeoutError":
        report_timeout(app, docname, data["traceback"], cells)
        return
    error, frame = parse_traceback(data["traceback"])
    if not frame:
        logger.error(f"executing the page failed: {error}", location=docname, type="snippet", subtype="exec")
        return
    # IPython names a cell by its execution count, which nbclient gives the cells in order.
    count, line = frame
    cell = cells[count - 1] if 0 < count <= len(cells) else None
    where = f"{pages.relative(cell.snippet)}:{line}" if cell and cell.snippet else docname
    report = Path(app.outdir, "reports", f"{docname}.err.log")
    if error.startswith(OUTPUT_LIMIT_ERROR) and cell and cell.snippet:  # raised by conf/kernel_startup.py
        logger.error(
            f"{limits.too_loud(pages.relative(cell.snippet))}; in the code cell at {cell.where}",
            location=where,
            type="snippet",
            subtype="exec",
        )
        return
    logger.error(
        f"{error}\n  raised by this snippet line, in the code cell at {cell.where if cell else docname}"
        f" (full traceback: {pages.relative(report)}); tag the cell `raises-exception` if it is meant to raise",
        location=where,
        type="snippet",
        subtype="exec",
    )


def timed_out_cells(message: str, cells: list[pages.CodeCell]) -> list[pages.CodeCell]:
    """The cells whose code nbclient's CellTimeoutError message previews: the whole code up to ten
    lines, else the lists of its first and last five (nbclient.exceptions; tests/test_build_errors.py
    fails if that wording changes)."""
    shown = TIMEOUT_PREVIEW.search(message)
    if not shown:
        return []
    found = []
    for cell in cells:
        if not cell.snippet:
            continue
        code = cell.snippet.read_text(encoding="utf-8")
        lines = code.strip().split("\n")
        preview = code if len(lines) < 11 else f"{lines[:5]}\n...\n{lines[-5:]}"
        if preview.strip() == shown.group(1).strip():
            found.append(cell)
    return found


def report_timeout(app, docname, message, cells):
    limit = app.config.nb_execution_timeout
    found = timed_out_cells(message, cells)
    if not found:
        logger.error(
            f"a code cell ran longer than {limit} s and was stopped, but it could not be matched with a "
            f"snippet:\n{message}",
            location=docname,
            type="snippet",
            subtype="exec",
        )
        return
    for cell in found:
        # Where it hangs inside the snippet, nbclient does not say: the cell that loads it is the location.
        logger.error(
            limits.too_slow(pages.relative(cell.snippet), limit),
            location=(docname, cell.line),
            type="snippet",
            subtype="exec",
        )


def rendered_code_cells(doctree: nodes.Node) -> list[nodes.container]:
    """The code cells myst-nb rendered into a page's doctree, in page order."""
    return [node for node in doctree.findall(nodes.container) if node.get("nb_element") == "cell_code"]


class SnippetDownloads(SphinxTransform):
    """Runs after parsing and before Sphinx collects the page's downloads (doctree-read)."""

    default_priority = 500

    def apply(self):
        cells = rendered_code_cells(self.document)
        page = pages.page_of(self.env)
        if page.problems():
            return  # its code cells were blanked, and check_page has reported why
        code_cells = page.code_cells
        if len(cells) != len(code_cells):
            # Matched by order, one shift would link every cell to another cell's snippet.
            logger.error(
                f"{len(code_cells)} code cell(s) in the page but myst-nb rendered {len(cells)}, so no cell "
                "can be matched with its snippet's download link (myst-nb drops a cell tagged both "
                "remove-input and remove-output: keep one of the two tags)",
                location=self.env.docname,
                type="snippet",
                subtype="download",
            )
            return
        for cell, code_cell in zip(cells, code_cells):
            cut = [
                node
                for node in cell.findall(nodes.literal_block)
                if "traceback" in node["classes"] and OUTPUT_LIMIT_ERROR in node.astext()
            ]
            # A raises-exception cell lets any error pass, this one too; in any other cell the failed
            # execution is already reported, with the snippet's line, by name_failing_snippet.
            if cut and code_cell.snippet and code_cell.raises:
                logger.error(
                    f"{limits.too_loud(pages.relative(code_cell.snippet))}; in the code cell at "
                    f"{code_cell.where} (tagged raises-exception, but this is no error the page means)",
                    location=(self.env.docname, code_cell.line),
                    type="snippet",
                    subtype="exec",
                )
            try:
                dimmed = glue_lines(code_cell.snippet)
                download = self.download_copy(code_cell.snippet)
            except (HelperImportError, SyntaxError) as error:
                logger.error(
                    snippet_problem(code_cell.snippet, error),
                    location=(self.env.docname, code_cell.line),
                    type="snippet",
                    subtype="page",
                )
                continue
            source = next((node for node in cell.findall(nodes.literal_block)), None)
            if source is not None and dimmed:
                source["highlight_args"] = {**source.get("highlight_args", {}), "hl_lines": dimmed}
            link = addnodes.download_reference(
                "",
                "",
                refdoc=self.env.docname,
                reftarget=download,
                refexplicit=True,
                classes=["snippet-download"],
            )
            link += nodes.literal(text=pages.relative(code_cell.snippet))
            cell.insert(0, nodes.paragraph("", "", link, classes=["snippet-source"]))

    def download_copy(self, snippet: Path) -> str:
        """Write the snippet as a reader downloads it (``standalone``) beside this language's build,
        under the snippet's own name; return its path relative to the page, as a download target."""
        copy = Path(self.env.doctreedir).parent / "downloads" / snippet.relative_to(pages.SNIPPETS)
        text = standalone(snippet)
        if not copy.is_file() or copy.read_text(encoding="utf-8") != text:
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(text, encoding="utf-8")
        return os.path.relpath(copy, Path(self.env.doc2path(self.env.docname)).parent)


def snippet_problem(snippet: Path, error: Exception) -> str:
    """Why a snippet cannot be shown or offered, starting with the file and line at fault."""
    if isinstance(error, HelperImportError):
        return str(error)  # it names the snippet's line, or what the helpers module lacks
    # A SyntaxError names the file it parsed: the snippet, or the helpers module its stand-ins read.
    where = Path(error.filename) if error.filename and Path(error.filename).is_file() else snippet
    return f"{pages.relative(where)}:{error.lineno}: {type(error).__name__}: {error.msg}"


def glue_lines(snippet: Path) -> list[int]:
    """The lines (1-based) of the snippet's statements that only hand a value to the prose: calls of
    glue, and an import of glue alone."""
    lines = []
    for statement in ast.walk(ast.parse(snippet.read_text(encoding="utf-8"), str(snippet))):
        call = statement.value if isinstance(statement, ast.Expr) else None
        glued = isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "glue"
        imports_glue = (
            isinstance(statement, ast.ImportFrom)
            and statement.module == "measured"
            and [alias.name for alias in statement.names] == ["glue"]
        )
        if glued or imports_glue:
            lines += range(statement.lineno, statement.end_lineno + 1)
    return sorted(lines)


def setup(app):
    app.add_transform(SnippetDownloads)
    app.connect("source-read", check_page)
    app.connect("doctree-read", name_failing_snippet)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
