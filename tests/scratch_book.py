"""A scratch checkout of the book for tests that build broken or unusual pages: this conf/, the helpers,
the given pages (in both language trees, with an index listing them) and snippets under snippets/demo/
(or at a path under snippets/)."""

import shutil
import subprocess
import sys
from pathlib import Path

import build_runs
from book_extensions import pages

FRONT_MATTER = "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n---\n\n"


def cell(load, tags=""):
    return f"```{{code-cell}} ipython3\n:load: {load}\n{tags}```\n"


def scratch_book(root: Path, page_texts: dict[str, str], snippets: dict[str, str]) -> Path:
    shutil.copytree(pages.ROOT / "conf", root / "conf", ignore=shutil.ignore_patterns("__pycache__", "locks"))
    (root / "snippets" / "demo").mkdir(parents=True)
    shutil.copy(pages.SNIPPETS / "measured.py", root / "snippets")
    shutil.copy(pages.ROOT / "pyproject.toml", root)  # conf.py reads the repository URL from it
    for language in pages.LANGUAGES:
        (root / "docs" / language).mkdir(parents=True)
    shutil.copy(pages.DOCS / "glossary.toml", root / "docs")
    for name, code in snippets.items():  # under snippets/demo/, or a path under snippets/
        path = root / "snippets" / (name if "/" in name else f"demo/{name}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code)
    for language in pages.LANGUAGES:
        toctree = "\n".join(name.removesuffix(".md") for name in page_texts)
        (root / "docs" / language / "index.md").write_text(f"# Scratch\n\n```{{toctree}}\n{toctree}\n```\n")
        for name, text in page_texts.items():
            (root / "docs" / language / name).write_text(text)
    return root


# jupyter_client gives a kernel ports that a probe in the parent found free, and the kernel binds them
# a second later; a kernel that another process (another pytest worker) starts meanwhile can take one
# first, and the kernel dies before its first reply (jupyter/jupyter_client#487). Sphinx then stops
# with this message, before the pages these builds are about have been read.
KERNEL_START_RACE = "RuntimeError: Kernel died before replying to kernel_info"


def build(scratch: Path, tree: str, *options: str, **popen) -> subprocess.CompletedProcess:
    """The book's Sphinx command on the scratch checkout; its output, stdout and stderr together. A build
    stopped by the kernel start race runs once more (Sphinx saved nothing of the stopped run's reading)."""
    command = [sys.executable, *build_runs.sphinx_args(tree, Path("build") / tree, *options)]
    for _ in range(2):
        done = subprocess.run(
            command, cwd=scratch, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600, **popen
        )
        if KERNEL_START_RACE not in done.stdout:
            break
    return done
