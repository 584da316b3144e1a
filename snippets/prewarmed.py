"""Start `python FILE` and `python -m MODULE` runs as forks of a process that already imported torch.

The tests start a Python process for every snippet's snapshot and every run of the exercise judge,
and importing torch is most of each one's start. A `Server` imports torch once; every run it is
asked for is a fresh `os.fork()` of it that runs the file or module as the interpreter would: a
process of its own (nothing one run does is seen by another, and the server itself never runs the
book's code), the given arguments, working folder and environment, stdin and the merged
stdout/stderr on pipes the caller holds, the exit status, and an uncaught exception printed by
``sys.excepthook`` without the frames of this module and ``runpy``.

What a fork cannot redo is what the interpreter and torch read when they start: the thread counts,
the hash seed, unbuffered output, the import path. Those come from the server's environment, so a
run that asks for other values of them is refused (``StartupMismatch``) instead of silently running
with the server's. The server runs one child at a time; a second `popen` waits for the first to end.

``launch_subprocess`` is the same interface over ``subprocess.Popen``, for a single run, where a
server would only add its own start (the exercise judge has its own, ``exercise_judge.runner``'s).
"""

from __future__ import annotations

import atexit
import builtins
import ctypes
import importlib
import importlib.machinery
import io
import json
import os
import runpy
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import types
from pathlib import Path

# Read by the interpreter or by `import torch` at start-up: a fork inherits the server's values.
STARTUP_VARIABLES = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "PYTHONHASHSEED",
    "PYTHONUNBUFFERED",
    "PYTHONPATH",
    "PYTHONWARNINGS",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING",
    "PYTHONUTF8",
    "PYTHONSAFEPATH",
    "PYTHONDEVMODE",
    "PYTHONFAULTHANDLER",
    "PYTHONOPTIMIZE",
    "PYTHONNOUSERSITE",
    "PYTHONINTMAXSTRDIGITS",
    "LC_ALL",
    "LC_CTYPE",
    "LANG",
)
STARTUP_PREFIXES = ("TORCH_", "KMP_", "OMP_", "MKL_")  # read by `import torch` and its thread pools
MESSAGE_BYTES = 1 << 20  # one request (arguments and environment) fits in one SEQPACKET message


def _startup_settings(env: dict[str, str]) -> dict[str, str]:
    return {
        name: value for name, value in env.items() if name in STARTUP_VARIABLES or name.startswith(STARTUP_PREFIXES)
    }


class StartupMismatch(ValueError):
    """A run asked for start-up settings other than the server's."""


def launch_subprocess(args: list[str], *, env: dict[str, str], cwd: Path | str) -> subprocess.Popen:
    """A plain child process, with the pipes `Server.popen` gives (text, stdout and stderr merged)."""
    return subprocess.Popen(
        args,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        env=env,
        cwd=cwd,
    )


class Server:
    """``with Server(env) as launch: child = launch([sys.executable, "x.py"], env=env, cwd=root)``.

    `env` is the environment the server starts with (and the start-up variables every run must share);
    `preload` the modules it imports before its first fork.
    """

    def __init__(self, env: dict[str, str], preload: tuple[str, ...] = ("torch",)):
        self._folder = tempfile.TemporaryDirectory(prefix="prewarmed-")
        self.address = str(Path(self._folder.name) / "socket")
        self.startup = _startup_settings(env)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "prewarmed", self.address, *preload],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            env=env,
            text=True,
        )
        ready = self._process.stdout.readline()
        if ready != "ready\n":
            self.close()
            raise RuntimeError(
                f"the prewarmed server did not start (exit {self._process.returncode}): {ready!r}"
                " (a fresh `python FILE` would print what the preload printed, a fork would not)"
            )

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
        self._process.wait()
        self._process.stdout.close()
        self._folder.cleanup()

    def __call__(self, args: list[str], *, env: dict[str, str], cwd: Path | str) -> "Child":
        return self.popen(args, env=env, cwd=cwd)

    def popen(self, args: list[str], *, env: dict[str, str], cwd: Path | str) -> "Child":
        """Like ``launch_subprocess(args, env=env, cwd=cwd)``; args: [sys.executable, FILE, ...] or
        [sys.executable, "-m", MODULE, ...]."""
        if not args or args[0] != sys.executable or len(args) < 2:
            raise ValueError(f"expected [sys.executable, FILE or -m MODULE, ...], got {args!r}")
        asked = _startup_settings(env)
        differs = {
            name: (self.startup.get(name), asked.get(name))
            for name in {*self.startup, *asked}
            if self.startup.get(name) != asked.get(name)
        }
        if differs:
            raise StartupMismatch(
                "these start-up variables differ from the server's (server, run): "
                + ", ".join(f"{name}={pair!r}" for name, pair in differs.items())
            )
        if args[1] == "-m":
            request = {"module": args[2], "argv": args[3:]}
        else:
            request = {"path": os.path.abspath(os.path.join(cwd, args[1])), "argv0": args[1], "argv": args[2:]}
        request |= {"cwd": str(cwd), "env": env}
        if log := os.environ.get("BOOK_EXECUTION_LOG"):  # counted by nox -s bench
            with open(log, "a") as file:
                file.write(f"{'fork-module' if 'module' in request else 'fork-file'} {' '.join(args[1:])}\n")
        stdin_read, stdin_write = os.pipe()
        output_read, output_write = os.pipe()
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            try:
                connection.connect(self.address)
                socket.send_fds(connection, [json.dumps(request).encode()], [stdin_read, output_write])
            finally:
                os.close(stdin_read)
                os.close(output_write)
            answer = connection.recv(MESSAGE_BYTES)
            if not answer:
                raise RuntimeError(f"the prewarmed server (exit {self._process.poll()}) did not start the run")
        except BaseException:
            connection.close()
            os.close(stdin_write)
            os.close(output_read)
            raise
        return Child(
            json.loads(answer)["pid"],
            connection,
            open(stdin_write, "w", encoding="utf-8"),
            open(output_read, encoding="utf-8", errors="replace"),
        )


class Child:
    """The part of ``subprocess.Popen`` the tests and the judge use, for a run the server forked."""

    def __init__(self, pid: int, connection: socket.socket, stdin: io.TextIOBase, stdout: io.TextIOBase):
        self.pid, self._connection, self.stdin, self.stdout = pid, connection, stdin, stdout
        self.returncode: int | None = None
        self._read: list[bytes] = []  # what communicate() has read so far

    def __enter__(self) -> "Child":
        return self

    def __exit__(self, *exc) -> None:
        for stream in (self.stdin, self.stdout):
            try:
                stream.close()
            except OSError:  # the child closed its end first
                pass
        self.wait()

    def _status(self, timeout: float | None) -> int | None:
        if self.returncode is None and select.select([self._connection], [], [], timeout)[0]:
            answer = self._connection.recv(MESSAGE_BYTES)
            # The server answers with the exit status once the child is reaped; no answer: it died.
            self.returncode = json.loads(answer)["returncode"] if answer else -signal.SIGKILL
            self._connection.close()
        return self.returncode

    def poll(self) -> int | None:
        return self._status(0)

    def wait(self, timeout: float | None = None) -> int:
        if self._status(timeout) is None:
            raise subprocess.TimeoutExpired(f"prewarmed child {self.pid}", timeout)
        return self.returncode

    def kill(self) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def communicate(self, timeout: float | None = None) -> tuple[str, None]:
        """Close stdin, read the output to its end, wait; TimeoutExpired after `timeout` seconds (a later
        call goes on from where it stopped, as with Popen)."""
        try:
            self.stdin.close()
        except BrokenPipeError:  # the child ended without reading its stdin
            pass
        deadline = None if timeout is None else time.monotonic() + timeout
        descriptor = self.stdout.fileno()
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([descriptor], [], [], left)[0]:
                raise subprocess.TimeoutExpired(f"prewarmed child {self.pid}", timeout, b"".join(self._read))
            chunk = os.read(descriptor, 65536)
            if not chunk:
                break
            self._read.append(chunk)
        self.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return b"".join(self._read).decode("utf-8", errors="replace"), None


# The server side: `python -m prewarmed ADDRESS MODULE...`, started by Server.


def _serve(address: str, preload: list[str]) -> None:
    try:  # Linux: end with the tests that started it, even if they are killed
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    printed = _preload_quietly(preload)
    if printed:
        print(f"the preload printed {printed[:500]!r}", flush=True)
        return
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(address)
    listener.listen()
    print("ready", flush=True)
    while True:
        connection, _ = listener.accept()
        try:
            _serve_one(listener, connection)
        except (OSError, ValueError) as error:  # a caller that went away, or a broken request: serve the next
            print(f"prewarmed: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
        finally:
            connection.close()


def _serve_one(listener: socket.socket, connection: socket.socket) -> None:
    message, descriptors, _, _ = socket.recv_fds(connection, MESSAGE_BYTES, 2)
    if len(descriptors) != 2:
        for descriptor in descriptors:
            os.close(descriptor)
        raise ValueError(f"a request with {len(descriptors)} descriptors")
    request = json.loads(message)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        listener.close()
        connection.close()
        _run_child(request, *descriptors)  # never returns
    for descriptor in descriptors:
        os.close(descriptor)
    try:
        connection.send(json.dumps({"pid": pid}).encode())
    finally:
        _, status = os.waitpid(pid, 0)  # reaped even when the caller is gone
    connection.send(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}).encode())


def _preload_quietly(modules: list[str]) -> str:
    """Import `modules` with fds 1 and 2 sent to a file; what they printed (a fresh run would show it)."""
    with tempfile.TemporaryFile() as captured:
        saved = os.dup(1), os.dup(2)
        os.dup2(captured.fileno(), 1)
        os.dup2(captured.fileno(), 2)
        try:
            for module in modules:
                importlib.import_module(module)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        captured.seek(0)
        return captured.read().decode("utf-8", errors="replace")


def _run_child(request: dict, stdin: int, output: int) -> None:
    code = 70  # EX_SOFTWARE: this module failed before the run began
    try:
        os.dup2(stdin, 0)
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.close(stdin)
        os.close(output)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
        # The encodings and error handlers the interpreter chose at start-up (they follow the locale).
        stdin, stdout, stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
        sys.stdin = open(0, encoding=stdin.encoding, errors=stdin.errors, closefd=False)
        sys.stdout = io.TextIOWrapper(
            io.FileIO(1, "w", closefd=False) if unbuffered else open(1, "wb", closefd=False),
            encoding=stdout.encoding,
            errors=stdout.errors,
            write_through=unbuffered,
        )
        sys.stderr = io.TextIOWrapper(
            io.FileIO(2, "w", closefd=False) if unbuffered else open(2, "wb", closefd=False),
            encoding=stderr.encoding,
            errors=stderr.errors,
            line_buffering=True,
            write_through=unbuffered,
        )
        code = _run(request)
        threading._shutdown()  # as at interpreter exit: non-daemon threads finish, then atexit runs
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # this module's own failure: say so on the run's stderr, never silently
        os.write(2, f"prewarmed: the run could not start:\n{traceback.format_exc()}".encode())
    finally:
        os._exit(code)


def _run(request: dict) -> int:
    """Run the request's file or module as __main__; the exit status the interpreter would give."""
    try:
        if "module" in request:
            sys.argv = [request["module"], *request["argv"]]  # runpy puts the module's file first
            sys.path[0] = os.getcwd()  # as `python -m` does
            runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        else:
            path = request["path"]
            sys.argv = [request["argv0"], *request["argv"]]  # as given, like `python FILE`
            sys.path[0] = os.path.dirname(path)  # as `python FILE` does
            # A __main__ module as the interpreter makes for a script, kept until the process ends
            # (atexit handlers and threads see it), with the absolute path as __file__.
            main = types.ModuleType("__main__")
            main.__file__, main.__cached__, main.__builtins__ = path, None, builtins
            main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
            sys.modules["__main__"] = main
            with open(path, "rb") as source:
                code = compile(source.read(), path, "exec", dont_inherit=True)
            exec(code, main.__dict__)
    except SystemExit as exit:
        if exit.code is None:
            return 0
        if isinstance(exit.code, int):
            return exit.code
        print(exit.code, file=sys.stderr)
        return 1
    except BaseException as error:
        if isinstance(error, KeyboardInterrupt):  # CPython ends by SIGINT then, after the traceback
            error.with_traceback(_without_runner_frames(error.__traceback__))
            sys.excepthook(type(error), error, error.__traceback__)
            sys.stderr.flush()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        # The hook prints the exception's own __traceback__, not the one it is given.
        error.with_traceback(_without_runner_frames(error.__traceback__))
        sys.excepthook(type(error), error, error.__traceback__)
        return 1
    return 0


def _without_runner_frames(tb):
    """The traceback from the run's own first frame on, as the interpreter would print it."""
    ours = {__file__, runpy.__file__, "<frozen runpy>"}
    while tb is not None and tb.tb_frame.f_code.co_filename in ours:
        tb = tb.tb_next
    return tb


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    _serve(sys.argv[1], sys.argv[2:])
