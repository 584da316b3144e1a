"""Two builds of one output folder never run at once: the second waits (build_runs.exclusive, a
filelock taken by the noxfile's build_site), and a build killed with SIGKILL does not leave the lock held."""

import os
import signal
import subprocess
import sys

import pytest

import book_settings

pytestmark = pytest.mark.torch_independent  # see pyproject.toml's markers

HOLD = """\
import sys, time, build_runs
with build_runs.exclusive(__import__('pathlib').Path(sys.argv[1]), lambda: print('waiting', flush=True)):
    print('held', flush=True)
    time.sleep(float(sys.argv[2]))
print('released', flush=True)
"""


def hold(lock, seconds):
    env = {**os.environ, "PYTHONPATH": str(book_settings.CONF)}
    return subprocess.Popen(
        [sys.executable, "-c", HOLD, str(lock), str(seconds)], env=env, stdout=subprocess.PIPE, text=True
    )


def test_a_second_build_waits_until_the_first_is_killed(tmp_path):
    lock = tmp_path / "build" / "build.lock"
    first = hold(lock, 120)
    assert first.stdout.readline() == "held\n"
    second = hold(lock, 0)
    try:
        assert second.stdout.readline() == "waiting\n"
        try:
            second.wait(timeout=1)
            raise AssertionError("the second holder did not wait for the first")
        except subprocess.TimeoutExpired:
            pass
        first.send_signal(signal.SIGKILL)  # a build killed mid-way: the kernel releases its lock
        first.wait()
        assert second.wait(timeout=30) == 0, "the lock of the killed holder was not released"
        assert second.stdout.read() == "held\nreleased\n"
    finally:
        for process in (first, second):
            process.kill()
            process.wait()
            process.stdout.close()


def test_a_free_lock_is_taken_at_once(tmp_path):
    done = hold(tmp_path / "build.lock", 0)
    assert done.stdout.read() == "held\nreleased\n" and done.wait(timeout=30) == 0
    done.stdout.close()
