"""A Sybil parser for the book's code cells: ```{code-cell} ipython3 with `:load:`.

Sybil knows neither `:load:` nor myst-nb's `raises-exception` tag. Each cell becomes one
example that runs the loaded snippet in the page's namespace, compiled under the snippet's
own path, so a failure points at `snippets/<chapter>/<idea>.py` and its line.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys

from sybil import Document, Example, Region

import book_settings
from book_extensions import pages
from snippet_runs import SnippetStopped


class _LimitedStream(io.TextIOBase):
    def __init__(self, stream, budget: list[int], message: str):
        self._stream, self._budget, self._message = stream, budget, message

    def write(self, text: str) -> int:
        self._budget[0] -= len(text)
        if self._budget[0] < 0:
            raise SnippetStopped(self._message)
        return self._stream.write(text)

    def flush(self) -> None:
        self._stream.flush()


@contextlib.contextmanager
def within_limits(snippet: str, where: str):
    """Stop a snippet still running after SNIPPET_TIMEOUT_SECONDS (SIGALRM: Sybil runs it in pytest's main
    thread) and cut one printing more than SNIPPET_OUTPUT_LIMIT characters to stdout and stderr together."""
    def stop(signum, frame):
        raise SnippetStopped(f"{book_settings.too_slow(snippet)}; loaded by the code cell at {where}")
    budget = [book_settings.SNIPPET_OUTPUT_LIMIT]
    message = f"{book_settings.too_loud(snippet)}; loaded by the code cell at {where}"
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (_LimitedStream(stream, budget, message) for stream in streams)
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, book_settings.SNIPPET_TIMEOUT_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.stdout, sys.stderr = streams


class CodeCellParser:
    def __call__(self, document: Document):
        page = pages.read_page(document.path, document.text)
        line_starts = [0]
        for line in document.text.splitlines(keepends=True):
            line_starts.append(line_starts[-1] + len(line))
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
        with within_limits(snippet, cell.where):
            exec(code, example.namespace)
    except Exception:
        if cell.raises:
            return
        raise
    if cell.raises:
        raise AssertionError(f"{cell.where}: the cell is tagged raises-exception, but {snippet} did not raise")
