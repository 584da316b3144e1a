"""A build killed with SIGKILL while a page executes leaves nothing that breaks or falsifies the next one.

The scratch book's second page loads a snippet that signals it has started and then sleeps; the
build (Sphinx and every process below it, the kernel included) is killed at that moment. The snippet is
then edited, and the next build must succeed and show the edited snippet's output, not a record of
the killed run.
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import build_runs
from practice_server import descendants
from scratch_book import FRONT_MATTER, build, cell, scratch_book

pytestmark = pytest.mark.torch_independent  # see pyproject.toml's markers

PAGES = {
    "first.md": FRONT_MATTER + "# First\n\n" + cell("../../snippets/demo/fine.py"),
    "second.md": FRONT_MATTER + "# Second\n\n" + cell("../../snippets/demo/slow.py"),
}
SLOW = "import pathlib, time\n\npathlib.Path('started').write_text('yes')\ntime.sleep(120)\nprint('the killed run')\n"


def test_a_build_killed_mid_execution_leaves_the_next_build_right(tmp_path):
    root = scratch_book(tmp_path, PAGES, {"fine.py": "print('fine')\n", "slow.py": SLOW})
    started = root / "docs" / "zh" / "started"  # the kernel runs in the page's folder
    command = [sys.executable, *build_runs.sphinx_args("zh", Path("build") / "zh")]
    killed = subprocess.Popen(command, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not started.exists():
            assert killed.poll() is None, "the build ended before the slow snippet started"
            assert time.monotonic() < deadline, "the slow snippet never started"
            time.sleep(0.2)
    finally:
        # Sphinx and everything it started: jupyter_client gives the kernel a session of its own, so
        # killing Sphinx's process group alone would leave the kernel to notice by itself.
        for pid in [killed.pid, *descendants(killed.pid)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        killed.wait()
    (root / "snippets" / "demo" / "slow.py").write_text("print('the edited run')\n")
    done = build(root, "zh")
    assert done.returncode == 0, done.stdout
    page = (root / "build" / "zh" / "html" / "second.html").read_text(encoding="utf-8")
    assert "the edited run" in page and "the killed run" not in page
    assert "fine" in (root / "build" / "zh" / "html" / "first.html").read_text(encoding="utf-8")
