"""Build and test the book. `nox -l` lists the sessions; arguments after `--` go to pytest."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "venv"  # pip: it takes the local torch wheels, uv does not
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests"]

ROOT = Path(__file__).parent
PYPROJECT = nox.project.load_toml("pyproject.toml")
TORCH = PYPROJECT["tool"]["autograd-measured"]["torch-versions"][0]
LANGUAGES = {"zh": "zh_CN", "en": "en"}  # built in this order: the en build reuses zh's executions
BUILD = ROOT / "build"
SITE = BUILD / "site"
SPHINX_FLAGS = ["-W", "--keep-going", "-n", "-b", "html", "-c", "conf"]
NOT_SITE = shutil.ignore_patterns(".buildinfo", "reports")  # Sphinx's bookkeeping, error logs


def install(session: nox.Session, group: str) -> None:
    """Install the pinned torch, a dependency group and this project, unless already there.

    pip takes seconds even when nothing is missing; a stamp in the venv skips it, so that a
    rebuild with nothing changed stays fast. Anything in the stamp changing reinstalls.
    """
    requirements = [f"torch=={TORCH}", *nox.project.dependency_groups(PYPROJECT, group)]
    stamp = Path(session.virtualenv.location) / "installed-requirements.txt"
    if stamp.is_file() and stamp.read_text() == "\n".join(requirements):
        session.log(f"requirements unchanged since the last install ({stamp.name}), skipping pip")
        return
    session.install(*requirements)
    session.install("--no-deps", "-e", ".")  # makes snippets/measured.py importable everywhere
    stamp.write_text("\n".join(requirements))


def build_site(session: nox.Session) -> None:
    """Build zh then en from the one conf, then assemble build/site with nothing but the site."""
    session.run("python", "conf/_ext/execution_cache.py")
    for language, code in LANGUAGES.items():
        out = BUILD / language
        failed = out / "last-build-failed"
        # Sphinx re-reads only changed pages, so a page that failed would pass unchanged
        # next time: after a failure, read everything again (executions stay cached).
        fresh = ["-E"] if failed.exists() else []
        shutil.rmtree(out / "html" / "reports", ignore_errors=True)
        failed.parent.mkdir(parents=True, exist_ok=True)
        failed.touch()
        session.run("sphinx-build", *SPHINX_FLAGS, *fresh, "-D", f"language={code}",
                    "-d", str(out / "doctrees"), f"docs/{language}", str(out / "html"))
        failed.unlink()
    shutil.rmtree(SITE, ignore_errors=True)
    for language in LANGUAGES:
        shutil.copytree(BUILD / language / "html", SITE / language, ignore=NOT_SITE)
    shutil.copy(ROOT / "conf" / "site-index.html", SITE / "index.html")
    session.log(f"site: {SITE / 'index.html'}")


@nox.session
def docs(session: nox.Session) -> None:
    """Build the book in both languages into build/site (open build/site/index.html)."""
    install(session, "docs")
    build_site(session)


@nox.session
def tests(session: nox.Session) -> None:
    """Build the site, then run every page's code (Sybil), the snippet snapshots and the site checks."""
    install(session, "tests")
    build_site(session)
    session.run("pytest", *session.posargs)


@nox.session(venv_backend="none")
def benchmark(session: nox.Session) -> None:
    """Time `nox -s docs` cold (build/ deleted, so every snippet runs) and warm (nothing changed)."""
    shutil.rmtree(BUILD, ignore_errors=True)
    seconds = {}
    for kind in ("cold", "warm"):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "nox", "-s", "docs"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds[kind] = time.perf_counter() - start
    print(f"nox -s docs: cold {seconds['cold']:.1f} s, warm {seconds['warm']:.1f} s "
          f"(warm = {seconds['warm'] / seconds['cold']:.0%} of cold)")
