"""Run a snippet the way a reader does, and normalise what it prints for comparison.

Normalisation equates only what changes from run to run or install to install (object
addresses, where torch and the kernel live, line numbers inside torch's own sources) and
nothing a reader could read as a result: 44.0 and 44.1 stay different.
"""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from exercise_judge import limits

import book_settings
from book_extensions import pages
from measured import ROUGHLY, TIMING
from prewarmed import launch_subprocess
from book_extensions.snapshots import GLUE_LINE, as_shown, compared_torch, snapshot_path
from book_extensions.snapshots import SNAPSHOTS, expected_snapshot, glued_values  # noqa: F401  (the tests' too)

TORCH = compared_torch()  # whose snapshots this run checks: the installed torch's, except in the canary
DEFAULT_TORCH = book_settings.DEFAULT_TORCH

NORMALISE = [
    (re.compile(r"\b0x[0-9a-f]{4,}\b"), "0x…"),  # object addresses
    (re.compile(r"/tmp/ipykernel_\d+/\d+\.py"), "<kernel cell>"),  # a page's cell, in the kernel
    (re.compile(r"(?:/[^\s:'\"]+)?/site-packages/torch/"), "<torch>/"),  # wherever torch is installed
    (re.compile(r"(\b\w+\.(?:h|cpp|cu)):\d+"), r"\1:<line>"),  # torch's C++ sources, e.g. TensorBody.h:493
    (re.compile(r"(<torch>/[^\s:'\"]+\.py)(\"?, line |:)\d+"), r"\1\2<line>"),  # torch's Python sources
    (re.compile(re.escape(str(pages.ROOT)) + "/"), ""),  # this checkout, wherever it is
]


NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?")
ROUNDING_NOISE = re.compile(ROUGHLY + NUMBER.pattern)


def _glue_line(match: re.Match) -> str:
    key, sign, value = match.groups()
    return f"[glue] {key} {sign} {as_shown(key, value) if sign == '=' else '#'}"


def normalise(text: str) -> str:
    for pattern, replacement in NORMALISE:
        text = pattern.sub(replacement, text)
    # Machine-dependent numbers: lines the snippet marked as timings keep their words, a number
    # marked as rounding noise its mark, a value glued with varies=True its key; another glued
    # float is rounded to what the prose shows of it.
    text = GLUE_LINE.sub(_glue_line, ROUNDING_NOISE.sub(ROUGHLY + "#", text))
    lines = [NUMBER.sub("#", line) if line.lstrip().startswith(TIMING) else line for line in text.splitlines()]
    return "\n".join(line.rstrip() for line in lines) + "\n"


@dataclass(frozen=True)
class Run:
    snippet: Path
    returncode: int
    output: str  # stdout and stderr, interleaved as printed, normalised
    seconds: float  # wall time of the whole process (torch import included unless prewarmed)


def run_snippet(snippet: Path, launch=launch_subprocess) -> Run:
    """`python snippets/<chapter>/<idea>.py` from the repository root, glued values shown; `launch`
    starts it (the tests pass a prewarmed.Server: a fork of a process that imported torch already)."""
    env = {
        **os.environ,
        **book_settings.RUN_ENV,  # as in the docs kernel: float32 sums in one order everywhere
        "MEASURED_SHOW_GLUE": "1",
        "PYTHONUNBUFFERED": "1",
        "MPLBACKEND": "Agg",
    }
    start = time.perf_counter()
    with launch([sys.executable, pages.relative(snippet)], env=env, cwd=pages.ROOT) as process:
        process.stdin.close()
        output = read_within_limits(process, pages.relative(snippet))
    return Run(snippet, process.returncode, normalise(output), time.perf_counter() - start)


def read_within_limits(process, name: str) -> str:
    """All the process prints, and its exit; it is killed and limits.Stopped raised past either limit."""
    output, stopped = limits.watch(process)
    if stopped:
        raise limits.TooSlow(limits.too_slow(name)) if stopped == "timeout" else limits.TooLoud(limits.too_loud(name))
    return output


def snapshot_to_write(snippet: Path, output: str, torch: str = TORCH) -> Path:
    """Where --force-regen writes: the default torch owns the shared snapshot; another version
    writes its own file only where its output really differs, so every difference is reviewed."""
    shared, override = snapshot_path(snippet), snapshot_path(snippet, torch)
    if torch == DEFAULT_TORCH or not shared.is_file():
        return shared
    if override.is_file() or shared.read_text(encoding="utf-8") != output:
        return override
    return shared


def all_loaded_cells() -> dict[Path, list[pages.CodeCell]]:
    """Every snippet loaded by a page of either language, with the cells that load it."""
    cells: dict[Path, list[pages.CodeCell]] = {}
    for language in pages.LANGUAGES:
        for page in pages.book_pages(language).values():
            for cell in page.code_cells:
                if cell.snippet:
                    cells.setdefault(cell.snippet, []).append(cell)
    return cells
