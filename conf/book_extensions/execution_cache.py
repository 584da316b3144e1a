"""Where myst-nb keeps executed notebooks: one jupyter-cache per torch version and helper module.

jupyter-cache keys a notebook by its cells' code only: not by the torch that ran it, and not by
snippets/measured.py, which every snippet imports. So the path names both: a build with another
torch, or after the helpers changed, starts from an empty cache instead of serving stale outputs.
``python -m book_extensions.execution_cache`` (PYTHONPATH=conf, as nox sets it)
creates the cache database before any build starts: two builds racing to create a new one fail
("table nbproject already exists").
"""

import hashlib
from importlib.metadata import version
from pathlib import Path

import book_settings


def cache_path() -> Path:
    helpers = hashlib.sha256((book_settings.SNIPPETS / "measured.py").read_bytes()).hexdigest()[:12]
    return book_settings.execution_cache(version("torch"), helpers)


if __name__ == "__main__":
    from jupyter_cache import get_cache

    path = cache_path()
    get_cache(path).db  # creates the folder and the tables when missing
    print(f"execution cache: {path.relative_to(book_settings.ROOT)}")
