"""Start `python FILE` and `python -m MODULE` runs as forks of a process that already imported torch.

Importing torch takes most of a second or more, and the tests start about two hundred Python
processes per torch version (every snippet for its snapshot, every run of the exercise judge). A
`Server` imports torch once; every run it is asked for is a fresh `os.fork()` of it that runs the
file or module as the interpreter would: a process of its own (nothing one run does is seen by
another, and the server itself never runs the book's code), the given arguments, working folder and
environment, stdin and the merged stdout/stderr on pipes the caller holds, the exit status, and an
uncaught exception printed by ``sys.excepthook`` without the frames of this module and ``runpy``.

What a fork cannot redo is what the interpreter and torch read when they start: the thread counts,
the hash seed, unbuffered output, the import path. Those come from the server's environment, so a
run that asks for other values of them is refused (``StartupMismatch``) instead of silently running
with the server's. The server runs one child at a time; a second `popen` waits for the first to end.

``launch_subprocess`` is the same interface over ``subprocess.Popen``: the exercise judge uses it
for a reader's single run, where a server would only add its own start.
"""

from __future__ import annotations

import atexit
import importlib
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
from pathlib import Path

# Read by the interpreter or by `import torch` at start-up: a fork inherits the server's values.
STARTUP_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "PYTHONHASHSEED", "PYTHONUNBUFFERED", "PYTHONPATH",
                     "PYTHONWARNINGS", "PYTHONDONTWRITEBYTECODE")
MESSAGE_BYTES = 1 << 20  # one request (arguments and environment) fits in one SEQPACKET message


class StartupMismatch(ValueError):
    """A run asked for start-up settings other than the server's."""


def launch_subprocess(args: list[str], *, env: dict[str, str], cwd: Path | str) -> subprocess.Popen:
    """A plain child process, with the pipes `Server.popen` gives (text, stdout and stderr merged)."""
    return subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace", env=env, cwd=cwd)


class Server:
    """``with Server(env) as launch: child = launch([sys.executable, "x.py"], env=env, cwd=root)``.

    `env` is the environment the server starts with (and the start-up variables every run must share);
    `preload` the modules it imports before its first fork.
    """

    def __init__(self, env: dict[str, str], preload: tuple[str, ...] = ("torch",)):
        self._folder = tempfile.TemporaryDirectory(prefix="prewarmed-")
        self.address = str(Path(self._folder.name) / "socket")
        self.startup = {name: env.get(name) for name in STARTUP_VARIABLES}
        self._process = subprocess.Popen([sys.executable, "-m", "prewarmed", self.address, *preload],
                                         stdout=subprocess.PIPE, env=env, text=True)
        ready = self._process.stdout.readline()
        if ready != "ready\n":
            self.close()
            raise RuntimeError(f"the prewarmed server did not start (exit {self._process.returncode}); "
                               f"it printed {ready!r}")

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
        differs = {name: (self.startup[name], env.get(name)) for name in STARTUP_VARIABLES
                   if env.get(name) != self.startup[name]}
        if differs:
            raise StartupMismatch("these start-up variables differ from the server's (server, run): "
                                  + ", ".join(f"{name}={pair!r}" for name, pair in differs.items()))
        if args[1] == "-m":
            request = {"module": args[2], "argv": args[3:]}
        else:
            request = {"path": str(Path(cwd, args[1]).resolve()), "argv": args[2:]}
        request |= {"cwd": str(cwd), "env": env}
        if log := os.environ.get("BOOK_EXECUTION_LOG"):  # counted by nox -s bench
            with open(log, "a") as file:
                file.write(f"{'fork-module' if 'module' in request else 'fork-file'} {' '.join(args[1:])}\n")
        stdin_read, stdin_write = os.pipe()
        output_read, output_write = os.pipe()
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            connection.connect(self.address)
            socket.send_fds(connection, [json.dumps(request).encode()], [stdin_read, output_write])
        finally:
            os.close(stdin_read)
            os.close(output_write)
        answer = connection.recv(MESSAGE_BYTES)
        if not answer:
            raise RuntimeError("the prewarmed server closed the connection without starting the run")
        return Child(json.loads(answer)["pid"], connection,
                     open(stdin_write, "w", encoding="utf-8"), open(output_read, encoding="utf-8", errors="replace"))


class Child:
    """The part of ``subprocess.Popen`` the tests and the judge use, for a run the server forked."""

    def __init__(self, pid: int, connection: socket.socket, stdin: io.TextIOBase, stdout: io.TextIOBase):
        self.pid, self._connection, self.stdin, self.stdout = pid, connection, stdin, stdout
        self.returncode: int | None = None

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
        """Close stdin, read the output to its end, wait; TimeoutExpired after `timeout` seconds."""
        self.stdin.close()
        deadline = None if timeout is None else time.monotonic() + timeout
        chunks = []
        descriptor = self.stdout.fileno()
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([descriptor], [], [], left)[0]:
                raise subprocess.TimeoutExpired(f"prewarmed child {self.pid}", timeout, "".join(chunks))
            chunk = os.read(descriptor, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        self.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return b"".join(chunks).decode("utf-8", errors="replace"), None


# The server side: `python -m prewarmed ADDRESS MODULE...`, started by Server.

def _serve(address: str, preload: list[str]) -> None:
    for module in preload:
        importlib.import_module(module)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    listener.bind(address)
    listener.listen()
    print("ready", flush=True)
    while True:
        connection, _ = listener.accept()
        message, descriptors, _, _ = socket.recv_fds(connection, MESSAGE_BYTES, 2)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            listener.close()
            connection.close()
            _run_child(json.loads(message), *descriptors)  # never returns
        for descriptor in descriptors:
            os.close(descriptor)
        connection.send(json.dumps({"pid": pid}).encode())
        _, status = os.waitpid(pid, 0)
        connection.send(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}).encode())
        connection.close()


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
        encoding = sys.stdout.encoding
        sys.stdin = open(0, encoding=sys.stdin.encoding, closefd=False)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False) if unbuffered else open(1, "wb", closefd=False),
                                      encoding=encoding, errors="strict", write_through=unbuffered)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False) if unbuffered else open(2, "wb", closefd=False),
                                      encoding=encoding, errors="backslashreplace", line_buffering=True,
                                      write_through=unbuffered)
        code = _run(request)
        threading._shutdown()  # as at interpreter exit: non-daemon threads finish, then atexit runs
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
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
            sys.argv = [request["path"], *request["argv"]]
            sys.path[0] = os.path.dirname(request["path"])  # as `python FILE` does
            runpy.run_path(request["path"], run_name="__main__")
    except SystemExit as exit:
        if exit.code is None:
            return 0
        if isinstance(exit.code, int):
            return exit.code
        print(exit.code, file=sys.stderr)
        return 1
    except BaseException as error:
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
