"""The reviewed snapshots of the snippets' output, read alike by the build and the tests.

tests/snapshots/<chapter>/<idea>.txt is what snippets/<chapter>/<idea>.py prints under the default
torch (normalised; glued values as ``[glue] key = repr`` lines); a supported torch that prints
something else has its own reviewed <idea>.torch-<version>.txt beside it. The snapshot tests write
and check them; the build shows from them what another torch prints (``torch_differences``).

No Sphinx hook. Tests: tests/test_snippets.py, tests/test_normalise.py, tests/test_torch_differences.py.
"""

from __future__ import annotations

import difflib
import functools
import math
import os
import re
from ast import literal_eval
from pathlib import Path

from myst_nb.core.variables import format_plain_text

import book_settings
from book_extensions import pages

SNAPSHOTS = book_settings.TESTS / "snapshots"
GLUE_LINE = re.compile(r"^\[glue\] (\S+) ([=~]) (.*)$", re.MULTILINE)


def compared_torch() -> str:
    """Whose snapshots this run's output is compared with: the installed torch's, except in
    `nox -s canary`, where an unsupported new release is held to the newest supported one's."""
    return os.environ.get("BOOK_SNAPSHOT_TORCH") or book_settings.installed_torch()


def snapshot_path(snippet: Path, torch: str | None = None) -> Path:
    """The snippet's snapshot that all torch versions share; with `torch`, that version's own."""
    shared = SNAPSHOTS / Path(snippet).resolve().relative_to(pages.SNIPPETS).with_suffix(".txt")
    return shared if torch is None else shared.with_suffix(f".torch-{torch}.txt")


def expected_snapshot(snippet: Path, torch: str | None = None) -> Path:
    """The version's own snapshot where one was reviewed in, else the shared one (by default,
    for the torch this run is compared with)."""
    override = snapshot_path(snippet, torch or compared_torch())
    return override if override.is_file() else snapshot_path(snippet)


def glued_values(output: str) -> dict[str, str | None]:
    """The `[glue] key = repr` lines a run printed, as {key: repr}; None for a varying value."""
    return {key: value if sign == "=" else None for key, sign, value in GLUE_LINE.findall(output)}


@functools.cache
def glue_formats() -> dict[str, tuple[str, ...]]:
    """{key: every format spec with which the prose of either language shows it}."""
    found: dict[str, set[str]] = {}
    for language in pages.LANGUAGES:
        for page in pages.book_pages(language).values():
            for role, key, spec in page.glue_refs:
                if role == "text":
                    found.setdefault(key, set()).add(spec)
    return {key: tuple(sorted(specs)) for key, specs in found.items()}


def as_shown(key: str, value: str) -> str:
    """The repr a snapshot records for a glued value: a float rounded to what the prose shows of
    it (the most precise of its shown texts that every format the prose uses shows alike),
    so that the last bits of float rounding, which differ from CPU to CPU, change no snapshot.
    Anything else, and a float that no rounding keeps, as it was."""
    specs = glue_formats().get(key)
    try:
        number = literal_eval(value)
    except (SyntaxError, ValueError):
        return value
    if not specs or type(number) is not float or not math.isfinite(number):
        return value
    shown = [format_plain_text(value, spec) for spec in specs]
    for text in sorted(shown, key=len, reverse=True):  # the most digits first
        try:
            candidate = float(text.replace(",", "").rstrip("%")) / (100 if text.endswith("%") else 1)
        except ValueError:
            continue
        if [format_plain_text(repr(candidate), spec) for spec in specs] == shown:
            return repr(candidate)
    return value


def printed_lines(output: str) -> list[str]:
    """What a reader sees under the cell: the output without the `[glue]` lines."""
    return [line for line in output.splitlines() if not GLUE_LINE.fullmatch(line)]


def differences(snippet: Path, this_torch: str) -> list[tuple[list[str], list[str]]]:
    """For each distinct output that other supported versions print instead of `this_torch`'s:
    (those versions, a diff of the printed lines). Versions that print the same share one entry;
    an output that differs only in glued values has no entry (the prose shows those)."""
    if not snapshot_path(snippet).is_file():
        return []
    ours = printed_lines(expected_snapshot(snippet, this_torch).read_text(encoding="utf-8"))
    by_output: dict[tuple[str, ...], list[str]] = {}
    for torch in book_settings.TORCH_VERSIONS:
        theirs = printed_lines(expected_snapshot(snippet, torch).read_text(encoding="utf-8"))
        if torch != this_torch and theirs != ours:
            by_output.setdefault(tuple(theirs), []).append(torch)
    return [(versions, diff_lines(ours, list(theirs))) for theirs, versions in by_output.items()]


def diff_lines(ours: list[str], theirs: list[str]) -> list[str]:
    """A unified diff with one line of context, without file headers; hunks apart by '…'."""
    lines = []
    for line in difflib.unified_diff(ours, theirs, lineterm="", n=1):
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):
            if lines:
                lines.append("…")
            continue
        lines.append(line)
    return lines


def glue_by_version(snippets: list[Path]) -> dict[str, dict[str, str | None]]:
    """{torch: {key: repr}} of every value these snippets glue, from each version's snapshot."""
    found = {}
    for torch in book_settings.TORCH_VERSIONS:
        values = {}
        for snippet in snippets:
            if snapshot_path(snippet).is_file():
                values.update(glued_values(expected_snapshot(snippet, torch).read_text(encoding="utf-8")))
        found[torch] = values
    return found
