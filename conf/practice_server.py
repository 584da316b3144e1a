"""JupyterLab over a folder of exercise notebooks, on the reader's own machine (`nox -s practice`).

Standard library only: the noxfile (outside the venvs) and the browser tests start it with a venv's
Python. It listens on 127.0.0.1 only, on a free port, with a random token, in a session of its own:
``stop`` ends it and every kernel it started, and Ctrl-C reaches only the caller, whose ``serve``
then stops it. Not a Sphinx extension. Tests: tests/browser/test_practice.py (tests/test_killed_build.py
uses ``descendants``).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# No call home: no news feed, no update check (JupyterLab's announcements plugin would ask for both).
LAB_SETTINGS = {"LabApp": {"news_url": None, "check_for_updates_class": "jupyterlab.NeverCheckForUpdate"}}
PAGE_CONFIG = {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}
START_SECONDS = 60
# What ends `serve`: Ctrl-C, `kill`, a closed terminal (Windows has no SIGHUP; the module is POSIX-only anyway).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@dataclass
class Server:
    process: subprocess.Popen
    url: str  # http://127.0.0.1:<port>/lab?token=<token>
    base: str  # http://127.0.0.1:<port>/
    token: str
    log: Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(python: Path, folder: Path, settings: Path, env: dict[str, str] | None = None) -> Server:
    """JupyterLab (`python -m jupyter lab`, the venv's) serving `folder`; its Jupyter settings and log in
    `settings` (a scratch folder of its own, so the reader's ~/.jupyter changes nothing). Returns once it
    answers; raises RuntimeError with its log when it does not within START_SECONDS."""
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "config" / "labconfig").mkdir(parents=True, exist_ok=True)
    (settings / "config" / "jupyter_server_config.json").write_text(json.dumps(LAB_SETTINGS), encoding="utf-8")
    (settings / "config" / "labconfig" / "page_config.json").write_text(json.dumps(PAGE_CONFIG), encoding="utf-8")
    port, token = free_port(), secrets.token_hex(16)
    command = [
        str(python),
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={folder}",
        f"--IdentityProvider.token={token}",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # Jupyter refuses root without it (containers run as root)
    log = settings / "server.log"
    environment = {
        **(env or os.environ),
        "JUPYTER_CONFIG_DIR": str(settings / "config"),
        "JUPYTER_RUNTIME_DIR": str(settings / "runtime"),
    }
    with open(log, "w", encoding="utf-8") as output:
        process = subprocess.Popen(
            command,
            cwd=folder,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}/"
    server = Server(process, f"{base}lab?token={token}", base, token, log)
    deadline = time.monotonic() + START_SECONDS
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"{base}api/status?token={token}", timeout=2) as answer:
                    if answer.status == 200:
                        return server
            except OSError:
                time.sleep(0.3)
    except BaseException:  # Ctrl-C while it starts: nothing is left behind
        stop(server)
        raise
    stop(server)
    raise RuntimeError(
        f"JupyterLab did not start (exit {process.returncode}); its log, {log}:\n"
        + log.read_text(encoding="utf-8", errors="replace")[-3000:]
    )


def serve(
    python: Path, folder: Path, settings: Path, announce: Callable[[Server], None], env: dict[str, str] | None = None
) -> None:
    """`start`, `announce` the server, and wait until it exits or this process gets one of STOP_SIGNALS;
    then `stop` it. The handlers are set here, not inherited: a shell that starts a job in the
    background makes it ignore SIGINT, and Python then never raises KeyboardInterrupt. A second
    Ctrl-C while the kernels shut down is ignored, so that nothing is left running."""

    def interrupt(signal_number, frame):
        raise KeyboardInterrupt

    previous = {signal_number: signal.signal(signal_number, interrupt) for signal_number in STOP_SIGNALS}
    server = None
    try:
        server = start(python, folder, settings, env)
        announce(server)
        server.process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        for signal_number in STOP_SIGNALS:
            signal.signal(signal_number, signal.SIG_IGN)
        if server is not None:
            stop(server)
        for signal_number, handler in previous.items():
            signal.signal(signal_number, handler)


def stop(server: Server, seconds: float = 20) -> None:
    """SIGTERM to the server's process group: the server shuts its kernels down (each in a session of its
    own). Whatever of the group or of those kernels is still running after `seconds` gets SIGKILL."""
    started = descendants(server.process.pid)
    group = server.process.pid  # its own session: the group's id is its pid
    for signal_number, wait in ((signal.SIGTERM, seconds), (signal.SIGKILL, 5)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal_number)
        for pid in started if signal_number == signal.SIGKILL else ():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal_number)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            server.process.poll()  # reaps the server itself: a zombie still counts as the group's
            if not alive(group, started):
                return
            time.sleep(0.2)


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (POSIX `ps`: Linux and macOS)."""
    listing = subprocess.run(["ps", "-A", "-o", "pid=,ppid="], capture_output=True, text=True).stdout
    children: dict[int, list[int]] = {}
    for line in listing.splitlines():
        child, parent = map(int, line.split())
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(group: int, pids: list[int]) -> bool:
    """True while a process of the group, or one of `pids`, runs (a zombie of another parent counts as gone)."""
    try:
        os.killpg(group, 0)
        return True
    except ProcessLookupError:
        pass
    return any(running(pid) for pid in pids)


def running(pid: int) -> bool:
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    return bool(state) and not state.startswith("Z")
