"""The venv that runs the tests holds exactly its lock, conf/locks/torch-<v>.txt: the same packages at the
same versions, nothing more. `nox -s lock` writes the locks; nox syncs each torch venv to its lock
(pip-sync) whenever the lock changes, so a difference means the venv was changed by hand.
"""

from __future__ import annotations

import difflib
import re
import subprocess
import sys

import pytest

import book_settings
from book_settings import ROOT, lock_file

PROJECT = "autograd-measured"  # the book's own helpers, installed editable on top of the lock
JUDGE = book_settings.JUDGE_DISTRIBUTION  # the exercises' judge, installed from its wheel on top of the lock
# The venv's own installer, never in a lock; setuptools and wheel came with the venv and are
# compared only where a locked package needs them (pip-sync leaves all three alone).
INSTALLER = "pip"
BOOTSTRAP = {"setuptools", "wheel", "distribute"}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")


def normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(lines: list[str]) -> dict[str, str]:
    return {normalised(m[1]): m[2] for line in lines if (m := PIN.match(line))}


def test_the_venv_holds_exactly_its_lock():
    torch = book_settings.installed_torch()  # 2.13.0+cpu is locked in torch-2.13.0.txt
    lock = lock_file(torch)
    if not lock.is_file():
        pytest.fail(f"torch {torch} has no lock, {lock.relative_to(ROOT)}: run nox -s lock -- {torch}", pytrace=False)
    locked = pins(lock.read_text().splitlines())
    frozen = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--all", "--exclude", PROJECT, "--exclude", JUDGE],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    installed = pins(frozen)
    unpinned = [line for line in frozen if not PIN.match(line) and not line.startswith("#")]  # -e, a URL
    for name in {INSTALLER} | (BOOTSTRAP - locked.keys()):
        installed.pop(name, None)
    expected = [f"{name}=={pin}" for name, pin in sorted(locked.items())]
    found = [f"{name}=={pin}" for name, pin in sorted(installed.items())] + unpinned
    if found != expected:
        diff = difflib.unified_diff(
            expected, found, str(lock.relative_to(ROOT)), f"pip freeze of {sys.prefix}", lineterm="", n=0
        )
        lines = [line for line in diff if not line.startswith("@@")]
        pytest.fail(
            "the venv is not its lock (- only in the lock, + only in the venv):\n" + "\n".join(lines), pytrace=False
        )
