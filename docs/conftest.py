"""Sybil runs every page of both languages: code cells, ```python blocks, doctests, hidden asserts.

This file sits in docs/ because pytest asks only the conftest files above a path to collect it.
"""

import os

from sybil import Sybil
from sybil.parsers.myst import ClearNamespaceParser, PythonCodeBlockParser, SkipParser

from code_cells import CodeCellParser

os.environ.setdefault("MPLBACKEND", "Agg")  # snippets that plot must not open a window

pytest_collect_file = Sybil(
    parsers=[CodeCellParser(), PythonCodeBlockParser(), SkipParser(), ClearNamespaceParser()],
    patterns=["*.md"],
).pytest()
