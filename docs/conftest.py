"""Sybil runs every page's code: code cells, ```python blocks, doctests, hidden asserts.

The zh pages only: tests/test_pages.py holds each en page to its zh twin's snippets, cell tags,
prose code and Sybil comments, line by line, so running the en page would run the same code again.
This file sits in docs/ because pytest asks only the conftest files above a path to collect it.
"""

import os

from sybil import Sybil
from sybil.parsers.myst import ClearNamespaceParser, PythonCodeBlockParser, SkipParser

from code_cells import CodeCellParser

os.environ.setdefault("MPLBACKEND", "Agg")  # snippets that plot must not open a window

pytest_collect_file = Sybil(
    parsers=[CodeCellParser(), PythonCodeBlockParser(), SkipParser(), ClearNamespaceParser()],
    patterns=["zh/*.md"],
).pytest()
