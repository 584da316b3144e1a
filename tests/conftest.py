"""Shared fixtures; and a skipped test fails the run (a skip would hide a missing build)."""

import os
from pathlib import Path

import pytest

import book_settings
import prewarmed
from book_extensions import pages
from records import Records
from snippet_runs import all_loaded_cells

# `nox -s tests` builds the site of its torch and says where; bare pytest looks at the default's.
SITE = Path(os.environ.get("BOOK_SITE", book_settings.BUILD / "site"))
RECORDS = Path(os.environ.get("BOOK_RECORDS", book_settings.RECORDS))


@pytest.fixture(scope="session")
def site() -> Path:
    """The assembled site. `nox -s tests` builds it first; run bare, pytest says how."""
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no built site at {pages.relative(SITE)}: run `nox -s docs` (or `nox -s tests`, which builds it)")
    return SITE


@pytest.fixture(scope="session")
def records(request):
    """What the snapshot tests found, written when the session ends (see pytest_sessionfinish)."""
    request.config.stash[RECORDS_KEY] = found = Records(RECORDS, book_settings.installed_torch())
    return found


RECORDS_KEY = pytest.StashKey[Records]()


@pytest.fixture(scope="session")
def launch():
    """Starts the snippet runs and the judge's runs, each as a fork of one process that imported torch
    once (prewarmed.Server) instead of a new interpreter that imports it again."""
    with prewarmed.Server({**os.environ, **book_settings.RUN_ENV, "PYTHONUNBUFFERED": "1"}) as server:
        yield server


def pytest_sessionfinish(session, exitstatus):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and exitstatus == pytest.ExitCode.OK:
        reporter.write_line(f"{len(skipped)} test(s) skipped: this book's tests never skip; see the reasons above",
                            red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if (found := session.config.stash.get(RECORDS_KEY, None)) is not None:
        # "last passed" only for a run that checked every snippet and failed nothing at all.
        every_snippet = set(found.entries) == {pages.relative(s) for s in all_loaded_cells()}
        found.write(passed_whole_run=every_snippet and session.exitstatus == pytest.ExitCode.OK)
