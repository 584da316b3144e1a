"""Shared fixtures, and two rules of every session: a skipped test fails the run (a skip would hide
a missing build), and the test record the site shows (tests/records.py) is written only by a run of
every snippet and every claim check, so a -k run never leaves a partial record."""

import os
from pathlib import Path

import pytest

import book_settings
import prewarmed
from book_extensions import pages
from book_extensions.claims import all_checks
from records import Records
from snippet_runs import all_loaded_cells

# `nox -s tests` builds the default torch's site and says where; bare pytest looks at build/site.
SITE = Path(os.environ.get("BOOK_SITE", book_settings.BUILD / "site"))
RECORDS = Path(os.environ.get("BOOK_RECORDS", book_settings.RECORDS))


@pytest.fixture(scope="session")
def site() -> Path:
    """The assembled site. `nox -s tests` builds it first; run bare, pytest says how."""
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no built site at {pages.relative(SITE)}: run `nox -s docs` (or `nox -s tests`, which builds it)")
    return SITE


@pytest.fixture(scope="session")
def build(site) -> Path:
    """Where the site's languages were built: <build>/site beside <build>/zh and <build>/en."""
    return site.parent


@pytest.fixture(scope="session")
def records(request):
    """What the snapshot tests found, written when the session ends (see pytest_sessionfinish)."""
    request.config.stash[RECORDS_KEY] = found = Records(RECORDS, book_settings.installed_torch())
    return found


RECORDS_KEY = pytest.StashKey[Records]()


def pytest_collection_modifyitems(config, items):
    """A test that reads the built site (the `site` or `build` fixture) is marked built_site: `nox -s
    tests` builds only the default torch's site, the one published, and deselects these on the others."""
    for item in items:
        if {"site", "build"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.built_site)


# What the server imports before it forks, so that no run pays for it again: torch, what torch imports
# on first use (torch._dynamo with the first optimizer, torch.testing and sympy with the first
# gradcheck) and what the plotting snippets import. Each is a module a fresh `python FILE` would import
# anyway, so preloading it changes no output.
PRELOADED = ("torch", "torch._dynamo", "torch.testing", "sympy", "matplotlib.pyplot")


@pytest.fixture(scope="session")
def launch():
    """Starts the snippet runs and the judge's runs, each as a fork of one process that imported torch
    once (prewarmed.Server) instead of a new interpreter that imports it again."""
    env = {**os.environ, **book_settings.RUN_ENV, "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"}
    with prewarmed.Server(env, preload=PRELOADED) as server:
        yield server


# Under pytest-xdist each worker fills its own Records; the controller gathers them (pytest_testnodedown)
# and alone writes the file, once, when the whole run is over.
WORKER_RECORDS_KEY = pytest.StashKey[list]()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    node.config.stash.setdefault(WORKER_RECORDS_KEY, []).append(node.workeroutput.get("records"))


def pytest_sessionfinish(session, exitstatus):
    found = session.config.stash.get(RECORDS_KEY, None)
    if hasattr(session.config, "workeroutput"):  # an xdist worker: hand what it found to the controller
        session.config.workeroutput["records"] = found.found() if found is not None else None
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and exitstatus == pytest.ExitCode.OK:
        reporter.write_line(
            f"{len(skipped)} test(s) skipped: this book's tests never skip; see the reasons above", red=True
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    from_workers = [worker for worker in session.config.stash.get(WORKER_RECORDS_KEY, []) if worker]
    if from_workers:
        found = Records(RECORDS, book_settings.installed_torch())
        for worker in from_workers:
            found.merge(worker)
    if found is not None:
        # The site shows the record as the book's: only a run of every snippet and every claim check
        # writes it, so a -k run never leaves a record with a part of the book, or parts of two runs.
        snippets, checks = {pages.relative(s) for s in all_loaded_cells()}, set(all_checks())
        if found.covers(snippets, checks):
            found.write(passed=session.exitstatus == pytest.ExitCode.OK)
        elif reporter:
            reporter.write_line(
                f"{pages.relative(found.path)} not written: this run checked "
                f"{len(set(found.entries) & snippets)} of {len(snippets)} snippets and "
                f"{len(set(found.claims) & checks)} of {len(checks)} claim checks, not all"
            )
