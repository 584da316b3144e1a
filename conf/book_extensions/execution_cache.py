"""Where myst-nb keeps executed notebooks (one jupyter-cache per torch version and helper module),
and the pages' execution ahead of Sphinx, one kernel per core.

jupyter-cache keys a notebook by its cells' code only: not by the torch that ran it, not by
snippets/measured.py, which every snippet imports, and not by conf/kernel_startup.py and the judge's
exercise_judge/limits.py (as installed), which shape what the kernel sends. So the path names them
all: a build with another torch, or after one of the files changed, starts from an empty cache
instead of serving stale outputs.

``python -m book_extensions.execution_cache`` (PYTHONPATH=conf, as nox runs it before each build)
creates the cache database (two builds racing to create a new one fail: "table nbproject already
exists"), then executes every page of the first language tree whose notebook the cache lacks, in
parallel: jupyter-cache's own local-parallel executor (but each kernel is killed when its page is
done), reading each page with myst-nb's own reader plugin, as ``jcache project execute`` would.
Sphinx, reading the pages one at a time, then finds them in the cache (the other language's pages
load the same snippets: the same notebook). A page that fails here is left out of the cache and the
exit status is 3; Sphinx executes it again and names the failing snippet line. Nothing is served
that the cache did not match by the page's code.
"""

import hashlib
import logging
import os
import sys
from importlib.metadata import version
from pathlib import Path

from exercise_judge import limits
from jupyter_cache.base import ProjectNb
from jupyter_cache.executors.basic import ExecutionWorkerLocalMProc, JupyterExecutorLocalMproc, ProcessData
from jupyter_cache.executors.utils import ExecutionResult, single_nb_execution

import book_settings
import build_runs

LEFT_TO_SPHINX = 3  # the exit status when a page failed here (the noxfile then builds one language at a time)
MYST_NB_READER = {"type": "plugin", "name": "myst_nb_md"}  # what myst-nb stages a MyST page with


def cache_path() -> Path:
    helpers = hashlib.sha256()
    for path in (book_settings.SNIPPETS / "measured.py", book_settings.CONF / "kernel_startup.py", limits.__file__):
        helpers.update(Path(path).read_bytes())
    return book_settings.execution_cache(version("torch"), helpers.hexdigest()[:12])


def notebook_pages(tree: str) -> list[Path]:
    """The pages of one language tree that myst-nb reads as notebooks (they have its front matter)."""
    from myst_nb.core.read import is_myst_markdown_notebook

    return [
        page
        for page in sorted((book_settings.DOCS / tree).rglob("*.md"))
        if is_myst_markdown_notebook(page.read_text(encoding="utf-8"))
    ]


class KernelKilledWhenDone(ExecutionWorkerLocalMProc):
    """jupyter-cache's worker of its local-parallel executor, but the kernel is killed once the page's
    last output is in, not asked to exit: its own exit takes seconds and nothing waits for it. The canary
    jupyter-cache-worker (upstream/notebook_stack.py) holds this copy to jupyter-cache's."""

    @staticmethod
    def execute(project_nb: ProjectNb, data: ProcessData) -> ExecutionResult:
        cwd = str(Path(project_nb.uri).parent)
        return single_nb_execution(
            project_nb.nb,
            cwd=cwd,
            timeout=data.timeout,
            allow_errors=data.allow_errors,
            shutdown_kernel="immediate",
        )


class ParallelExecutor(JupyterExecutorLocalMproc):
    """`jcache project execute --executor local-parallel`, with KernelKilledWhenDone."""

    _EXECUTION_WORKER = KernelKilledWhenDone


def execute_missing(cache, pages: list[Path], timeout: int) -> dict[str, list[str]]:
    """Execute, one kernel per core, every page whose notebook the cache does not hold."""
    for page in pages:
        cache.add_nb_to_project(str(page), read_data=MYST_NB_READER)
    executor = ParallelExecutor(cache, logger=logging.getLogger("execution_cache"))
    return executor.run_and_cache(
        filter_uris=[str(page) for page in pages], timeout=timeout, allow_errors=False
    ).as_json()


if __name__ == "__main__":
    from jupyter_cache import get_cache

    os.environ.update(book_settings.RUN_ENV, **build_runs.kernel_environment())  # as conf.py does for Sphinx
    path = cache_path()
    cache = get_cache(path)
    cache.db  # creates the folder and the tables when missing
    print(f"execution cache: {path.relative_to(book_settings.ROOT)}")
    pages = notebook_pages(next(iter(book_settings.LANGUAGES)))
    found = execute_missing(cache, pages, limits.TIMEOUT_SECONDS)
    failed = found["excepted"] + found["errored"]
    print(
        f"executed ahead of Sphinx: {len(found['succeeded'])} page(s); left to Sphinx to report: {len(failed)}",
        flush=True,
    )
    sys.exit(LEFT_TO_SPHINX if failed else 0)
