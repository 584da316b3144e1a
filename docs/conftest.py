"""Sybil runs the code of every zh page: code cells, ```python blocks, doctests, hidden asserts.

The en pages run through their twins: tests/test_pages.py holds each en page to its zh twin's
snippets, cell tags, prose examples (code, doctest source and expected output) and Sybil's skip and
clear-namespace comments, line by line. This file sits in docs/ because pytest asks only the
conftest files above a path to collect it.
"""

import os

from sybil import Sybil
from sybil.parsers.myst import ClearNamespaceParser, PythonCodeBlockParser, SkipParser

from code_cells import CodeCellParser

os.environ.setdefault("MPLBACKEND", "Agg")  # snippets that plot must not open a window

pytest_collect_file = Sybil(
    parsers=[CodeCellParser(), PythonCodeBlockParser(), SkipParser(), ClearNamespaceParser()],
    path="zh",
    patterns=["*.md"],
).pytest()
