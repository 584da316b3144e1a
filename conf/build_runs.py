"""How one build of the book runs: the Sphinx command line of a language tree, the lock that keeps two
builds out of one output folder (the judge's wheel folder too), the docs kernels' environment and the
date a reproducible build states.

The noxfile, conf.py, the execution cache and the tests use these; the facts they use (paths,
languages) are book_settings'. Only the standard library is imported at the top (the noxfile runs outside the
venvs); ``exclusive`` imports filelock, which nox's environment has too.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

from book_settings import BUILD, CONF, LANGUAGES, ROOT


def sphinx_options(tree: str, out: Path, *extra: str) -> list[str]:
    """The book's Sphinx options for one language tree, doctrees in out/doctrees: every warning
    fails the build, after all pages were tried."""
    return [
        "-W",
        "--keep-going",
        "-n",
        "-b",
        "html",
        "-c",
        "conf",
        *extra,
        "-D",
        f"language={LANGUAGES[tree]}",
        "-d",
        str(out / "doctrees"),
    ]


def sphinx_args(tree: str, out: Path, *extra: str) -> list[str]:
    """`python -m sphinx …` for one language tree into out/html, run from the repository root
    (or a scratch checkout laid out like it)."""
    return ["-m", "sphinx", *sphinx_options(tree, out, *extra), f"docs/{tree}", str(out / "html")]


@contextlib.contextmanager
def exclusive(lock: Path, waiting: Callable[[], None] = lambda: None) -> Iterator[None]:
    """Hold an exclusive lock on the file `lock` for the `with` block; call `waiting` first if another
    process holds it, then wait for it. Two builds of one output folder must not run at once (they race
    on the same files); the lock of a killed process is released by the system."""
    from filelock import FileLock, Timeout  # nox's own environment has it (a dependency of virtualenv)

    held = FileLock(lock)
    try:
        acquired = held.acquire(blocking=False)
    except Timeout:
        waiting()
        acquired = held.acquire()
    with acquired:
        yield


def kernel_environment() -> dict[str, str]:
    """What the docs kernels' environment adds to RUN_ENV: an IPython folder under build/ whose startup
    file is conf/kernel_startup.py (the output limit, exercise_judge.limits)."""
    startup = BUILD / "ipython" / "profile_default" / "startup" / "00-book-limits.py"
    wanted = (CONF / "kernel_startup.py").read_text(encoding="utf-8")
    if not startup.is_file() or startup.read_text(encoding="utf-8") != wanted:
        startup.parent.mkdir(parents=True, exist_ok=True)
        partial = startup.with_name(f".{startup.name}.{os.getpid()}")  # a build killed mid-write leaves no half file
        partial.write_text(wanted, encoding="utf-8")
        partial.replace(startup)
    return {"IPYTHONDIR": str(BUILD / "ipython")}


def last_commit_time() -> str:
    """Seconds since 1970 ("0" outside git): the SOURCE_DATE_EPOCH of the builds nox -s reproducible
    compares (the reproducible-builds convention), which the verification page states as their date."""
    epoch = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True).stdout
    return epoch.strip() or "0"
