"""Sybil runs the code of every zh page: code cells, ```python blocks, doctests, hidden asserts.

The en pages run through their twins: tests/test_pages.py reads each page with these parsers and
holds every example of an en page (cell, code block, doctest with its expected output, skip,
namespace clear) to its zh twin's, on the same line. This file sits in docs/ because pytest asks
only the conftest files above a path to collect it.
"""

import os

from sybil import Sybil

from code_cells import page_parsers

os.environ.setdefault("MPLBACKEND", "Agg")  # snippets that plot must not open a window

pytest_collect_file = Sybil(
    parsers=page_parsers(),
    path="zh",
    patterns=["*.md"],
).pytest()
