"""The time and output limits of every run of the book's code and of a reader's solution, and their keeping.

A run is stopped once it has run TIMEOUT_SECONDS or printed more than OUTPUT_LIMIT characters (stdout
and stderr together): in a docs kernel (``Printed``, from the book's conf/kernel_startup.py; nbclient
times the cells), under Sybil (``in_process``), and as a child process: the snapshot runs and the judge
(``watch``). Readers install the judge alone, so it cannot import the book; every venv of the book
installs the judge, so the book imports the limits from here. Standard library only, any system.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from typing import Callable, Iterator, Optional

TIMEOUT_SECONDS = 60  # far above the slowest snippet or reference solution
OUTPUT_LIMIT = 100_000  # characters: far above the longest output a page shows
SET_IN = "snippets/judge/exercise_judge/limits.py"  # where the book's error messages send an author


class Stopped(BaseException):
    """A run stopped by a limit. A BaseException: code run in-process must not catch it with `except Exception`."""


class TooSlow(Stopped):
    pass


class TooLoud(Stopped):
    pass


def too_slow(name: str, seconds: Optional[float] = None) -> str:
    return (
        f"{name} was still running after {seconds or TIMEOUT_SECONDS:g} s (the per-run limit, TIMEOUT_SECONDS "
        f"in {SET_IN}) and was stopped"
    )


def too_loud(name: str) -> str:
    return (
        f"{name} printed more than {OUTPUT_LIMIT:,} characters (the per-run limit, OUTPUT_LIMIT in {SET_IN}) "
        "and was cut"
    )


class Printed:
    """Counts what the streams it watches are given, together, and raises TooLoud from the write that
    passes OUTPUT_LIMIT. `count` is the caller's to reset (the docs kernel: at each cell)."""

    def __init__(self, name: str):
        self.name, self.count = name, 0

    def watch(self, stream) -> Callable[[], None]:
        """Replace `write` on the stream object itself (whoever holds the stream is counted); returns the undo."""
        write = stream.write

        def counted(text: str) -> int:
            self.count += len(text)
            if self.count > OUTPUT_LIMIT:
                raise TooLoud(too_loud(self.name))
            return write(text)

        stream.write = counted
        return lambda: setattr(stream, "write", write)


@contextlib.contextmanager
def in_process(name: str) -> Iterator[None]:
    """Both limits on what the `with` block runs in the main thread: TooSlow from SIGALRM, and TooLoud."""

    def stop(signum, frame):
        raise TooSlow(too_slow(name))

    printed = Printed(name)
    undo = [printed.watch(stream) for stream in dict.fromkeys((sys.stdout, sys.stderr))]
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, TIMEOUT_SECONDS)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        for step in reversed(undo):
            step()


def watch(
    process, seconds: Optional[float] = None, began: Optional[Callable[[], bool]] = None, startup: float = 0
) -> tuple[str, Optional[str]]:
    """What `process` printed (stdout, stderr merged in) until it ended (a second more while a child it
    left behind holds the pipe; that child's later output is not read), and why it was killed: None,
    "timeout" `seconds` (TIMEOUT_SECONDS) after `began()` first held (after now without `began`),
    "slow-start" if it did not hold within `startup` seconds, or "flood" past OUTPUT_LIMIT.

    A thread reads the pipe (select() cannot wait on one on Windows) through its own copy of the
    descriptor, unbuffered: a child the run left behind may hold the pipe open for ever, and closing
    `process.stdout` must not wait for that thread, nor the run's last words wait for a full buffer."""
    chunks: list[bytes] = []
    descriptor, done = os.dup(process.stdout.fileno()), threading.Event()
    too_many_bytes = 4 * OUTPUT_LIMIT  # a character takes up to four: past this, surely past OUTPUT_LIMIT

    def read() -> None:  # up to the output limit, and not after watch returned: a left-behind child is not drained
        try:
            while not done.is_set() and sum(map(len, chunks)) <= too_many_bytes:
                chunk = os.read(descriptor, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
        finally:
            os.close(descriptor)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    launched = time.monotonic()
    started, stopped, ended = (None if began else launched), None, None
    while reader.is_alive() or process.poll() is None:
        now = time.monotonic()
        if process.poll() is not None:  # it ended; a child it left behind may hold the pipe: a second, then go
            ended = ended or now
            if now - ended > 1:
                break
        if started is None and began():
            started = now
        if started is None and now - launched > startup:
            stopped = "slow-start"
        elif started is not None and now - started > (seconds or TIMEOUT_SECONDS):
            stopped = "timeout"
        elif sum(map(len, chunks)) > too_many_bytes:
            stopped = "flood"
        if stopped:
            process.kill()
            break
        if reader.is_alive():
            reader.join(0.05)  # returns as soon as the pipe closes, as most runs end
        else:
            time.sleep(0.01)
    process.wait()
    if stopped:
        reader.join(1)  # what a killed run wrote last; a child it left behind may hold the pipe open
    done.set()
    # as a text pipe reads it: the stream's encoding, and universal newlines
    output = b"".join(list(chunks)).decode(getattr(process.stdout, "encoding", None) or "utf-8", errors="replace")
    output = output.replace("\r\n", "\n").replace("\r", "\n")
    return output, stopped or ("flood" if len(output) > OUTPUT_LIMIT else None)
