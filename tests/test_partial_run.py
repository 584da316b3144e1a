"""A test run that leaves out snippets or claim checks does not write the record the site shows."""

import os
import subprocess
import sys

import pytest

from book_extensions.claims import all_checks
from records import Records

pytestmark = pytest.mark.torch_independent  # see pyproject.toml's markers


def test_a_run_of_one_claim_check_writes_no_record(tmp_path):
    check = sorted(all_checks())[0]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "tests/test_claims.py",
            "-k",
            f"test_claim_holds and {check.split('/')[1]}",
        ],
        env={**os.environ, "BOOK_RECORDS": str(tmp_path)},
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout
    assert "1 passed" in done.stdout and "not written" in done.stdout, done.stdout
    assert not list(tmp_path.iterdir()), "a run of one claim check wrote a record"


def test_only_a_run_of_every_snippet_and_every_claim_check_is_complete(tmp_path):
    snippets, checks = {"snippets/a/one.py", "snippets/a/two.py"}, {"a/claims.py::one", "a/claims.py::two"}
    found = Records(tmp_path, "0.0")
    found.entries = dict.fromkeys(snippets, {})
    assert not found.covers(snippets, checks), "every snippet but no claim check counted as complete"
    found.claims = dict.fromkeys(checks, {})
    assert found.covers(snippets, checks)
    del found.entries["snippets/a/two.py"]
    assert not found.covers(snippets, checks), "a run missing a snippet counted as complete"
    found.entries |= dict.fromkeys([*snippets, "snippets/a/gone.py"], {})
    assert not found.covers(snippets, checks), "an entry of a removed snippet counted as complete"
