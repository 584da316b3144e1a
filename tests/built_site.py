"""What a build leaves beside the assembled site, read by the site and notebook tests."""

import pickle
from functools import cache
from pathlib import Path

from docutils import nodes

from book_extensions import pages


@cache
def doctree(build: Path, language: str, name: str) -> nodes.document:
    """The page's resolved doctree as the build pickled it (<build>/<lang>/doctrees/<page>.doctree)."""
    path = build / language / "doctrees" / Path(name).with_suffix(".doctree")
    assert path.is_file(), f"{pages.relative(path)} was not built"
    return pickle.loads(path.read_bytes())
