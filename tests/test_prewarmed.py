"""A prewarmed run is indistinguishable from `python FILE` for what the tests compare, and isolated."""

import os
import signal
import subprocess
import sys

import pytest

import book_settings
import prewarmed

ENV = {**os.environ, **book_settings.RUN_ENV, "PYTHONUNBUFFERED": "1"}

# Prints what a script sees of its start, reads stdin, interleaves stdout and stderr, then fails in
# a function called from the module: the traceback's frames, carets included, must match.
SCRIPT = """\
import os, sys
print("argv", sys.argv, "path0", sys.path[0] == os.path.dirname(os.path.abspath(__file__)), "file", __file__)
print("streams", sys.stdout.encoding, sys.stdout.errors, sys.stderr.errors, sys.stdin.errors)
print("cwd", os.getcwd(), "var", os.environ.get("PREWARMED_TEST"), "name", __name__)
print("stdin", sys.stdin.readline().strip())
print("to stderr", file=sys.stderr)
print("to stdout")
import torch
torch.prewarmed_test_mark = True  # must not leak into the next run

def divide(a, b):
    return a / b

divide(1, 0)
"""


def both_launchers(launch, args, env, cwd, stdin=""):
    """Run with the prewarmed server and with a plain subprocess; returns both (returncode, output)."""
    results = []
    for start in (launch, prewarmed.launch_subprocess):
        with start(args, env=env, cwd=cwd) as child:
            child.stdin.write(stdin)
            output, _ = child.communicate(timeout=60)
        results.append((child.returncode, output))
    return results


def test_a_run_matches_a_fresh_interpreter(tmp_path, launch):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    forked, fresh = both_launchers(
        launch, [sys.executable, "script.py", "one", "two"], {**ENV, "PREWARMED_TEST": "set"}, tmp_path, stdin="hello\n"
    )
    assert forked == fresh
    assert fresh[0] == 1 and "ZeroDivisionError" in fresh[1] and "stdin hello" in fresh[1]


@pytest.mark.parametrize(
    "ending, status",
    [
        ("sys.exit(3)", 3),
        ("sys.exit('stopped')", 1),
        ("sys.exit()", 0),
        ("os._exit(5)", 5),
        ("raise KeyboardInterrupt", -signal.SIGINT),
    ],
)
def test_exit_statuses_match(tmp_path, launch, ending, status):
    script = tmp_path / "ends.py"
    script.write_text(f"import os, sys\nprint('before')\n{ending}\n")
    forked, fresh = both_launchers(launch, [sys.executable, str(script)], ENV, tmp_path)
    assert forked == fresh and fresh[0] == status


def test_a_module_run_matches(tmp_path, launch):
    (tmp_path / "a_module.py").write_text("import sys\nprint(__name__, sys.argv[1:])\nraise SystemExit(2)\n")
    forked, fresh = both_launchers(launch, [sys.executable, "-m", "a_module", "x"], ENV, tmp_path)
    assert forked == fresh == (2, "__main__ ['x']\n")


def test_runs_do_not_see_each_other(tmp_path, launch):
    script = tmp_path / "mark.py"
    script.write_text("import torch\nprint(hasattr(torch, 'prewarmed_test_mark'))\ntorch.prewarmed_test_mark = 1\n")
    outputs = []
    for _ in range(2):
        with launch([sys.executable, str(script)], env=ENV, cwd=tmp_path) as child:
            outputs.append(child.communicate(timeout=60)[0])
    assert outputs == ["False\n", "False\n"]


def test_a_run_that_printed_then_hangs_times_out_and_can_be_killed(tmp_path, launch):
    script = tmp_path / "hang.py"
    script.write_text("print('partial', flush=True)\nwhile True:\n    pass\n")
    with launch([sys.executable, str(script)], env=ENV, cwd=tmp_path) as child:
        with pytest.raises(subprocess.TimeoutExpired) as raised:
            child.communicate(timeout=2)
        assert raised.value.output == b"partial\n"
        child.kill()
        assert child.wait(timeout=10) == -signal.SIGKILL


def test_a_preload_that_prints_is_refused(tmp_path):
    (tmp_path / "noisy.py").write_text("print('imported')\n")
    env = {**ENV, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ENV.get('PYTHONPATH', '')}"}
    with pytest.raises(RuntimeError, match="the preload printed 'imported"):
        prewarmed.Server(env, preload=("noisy",))


def test_other_start_up_settings_are_refused(tmp_path, launch):
    with pytest.raises(prewarmed.StartupMismatch, match="OMP_NUM_THREADS"):
        launch([sys.executable, "x.py"], env={**ENV, "OMP_NUM_THREADS": "2"}, cwd=tmp_path)
