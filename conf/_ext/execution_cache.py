"""Where myst-nb keeps executed notebooks: one jupyter-cache per installed torch version.

jupyter-cache keys a notebook by its code only, not by the torch that ran it, so one shared
cache would serve torch A's outputs to a build with torch B. ``python conf/_ext/execution_cache.py``
creates the cache database before any build starts: two builds racing to create a new one fail
("table nbproject already exists").
"""

from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cache_path() -> Path:
    return ROOT / "build" / "cache" / f"torch-{version('torch')}"


if __name__ == "__main__":
    from jupyter_cache import get_cache

    path = cache_path()
    get_cache(path).db  # creates the folder and the tables when missing
    print(f"execution cache: {path.relative_to(ROOT)}")
