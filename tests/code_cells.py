"""A Sybil parser for the book's code cells: ```{code-cell} ipython3 with `:load:`, and the parsers
Sybil reads a page with (docs/conftest.py; the twin tests compare what they find).

Sybil knows neither `:load:` nor myst-nb's `raises-exception` tag. Each cell becomes one
example that runs the loaded snippet in the page's namespace, compiled under the snippet's
own path, so a failure points at `snippets/<chapter>/<idea>.py` and its line, within the
per-run limits of exercise_judge.limits.
"""

from __future__ import annotations

import os

from exercise_judge import limits
from sybil import Document, Example, Region
from sybil.parsers.myst import ClearNamespaceParser, PythonCodeBlockParser, SkipParser

from book_extensions import pages


class CodeCellParser:
    def __call__(self, document: Document):
        page = pages.read_page(document.path, document.text)
        line_starts = [0]  # lines end at "\n" only, as the Markdown parser counts them
        for line in document.text.split("\n"):
            line_starts.append(line_starts[-1] + len(line) + 1)
        for cell in page.code_cells:
            start = line_starts[cell.line - 1]
            end = line_starts[min(cell.end_line, len(line_starts) - 1)]
            yield Region(start, end, parsed=cell, evaluator=evaluate_cell)


def evaluate_cell(example: Example) -> None:
    cell: pages.CodeCell = example.parsed
    problems = [message for line, message in pages.read_page(cell.page).problems() if line == cell.line]
    if problems:
        raise AssertionError(f"{cell.where}: " + "; ".join(problems))
    snippet = pages.relative(cell.snippet)
    if log := os.environ.get("BOOK_EXECUTION_LOG"):  # counted by nox -s bench
        with open(log, "a") as file:
            file.write(f"sybil {snippet}\n")
    code = compile(cell.snippet.read_text(encoding="utf-8"), snippet, "exec")
    try:
        with limits.in_process(f"{snippet}, loaded by the code cell at {cell.where},"):
            exec(code, example.namespace)
    except Exception:
        if cell.raises:
            return
        raise
    if cell.raises:
        raise AssertionError(f"{cell.where}: the cell is tagged raises-exception, but {snippet} did not raise")


def page_parsers() -> list:
    """Everything Sybil runs on a page: code cells, ```python blocks and doctests, skips, namespace clears."""
    return [CodeCellParser(), PythonCodeBlockParser(), SkipParser(), ClearNamespaceParser()]
