"""`nox -s reproducible`: two clean builds of this working tree give the same site, byte for byte,
except for what a run of the snippets changes by nature. Exits 1 and shows the lines otherwise.

Each build runs `nox -s docs` for the default torch in its own scratch copy (empty build/, empty
execution cache, no test records, SOURCE_DATE_EPOCH = build_runs.last_commit_time()). `nox -s
reproducible -- build/clean-build-site` compares that folder, a copy of such a build (.ci/run's
first, made by nox -s tests in its clean clone), with one more; without it, makes both and says so.
Allowed to differ, and nothing else:

1. the execution badge's date and duration (`Executed with torch 2.13.0 on <date>: 9 snippets, <s> s`):
   they come from the page's execution record, i.e. when and how fast that build ran it;
2. object addresses (`<MulBackward0 object at 0x7f…>`), which Python gives each run anew;
3. numbers on a snippet's `timing:` output lines and numbers pasted into the prose from a run
   (glue): timings are machine-dependent by design, and every other pasted or printed number is
   pinned by the snapshot tests, not here;
4. the images the snippets draw, named by their content's hash (same count, same places in the
   pages; a plot of timings differs), the search index, which indexes the numbers of 3, and the
   chapter notebooks (<page>.ipynb), which hold the snippets' outputs, so those of 2 and 3.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from bench import book_settings, scratch_copy
import build_runs

BADGE = re.compile(r'(class="execution-badge">[^<]*?)\d{4}-\d{2}-\d{2} \d{2}:\d{2}( UTC)?([^<]*?)\d+\.\d+( s| 秒)')
ADDRESS = re.compile(r"\b0x[0-9a-f]{6,}\b")
IMAGE = re.compile(r"_images/[0-9a-f]{64}\.(svg|png)")
NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?")
PASTED = re.compile(r'<span class="pasted-text">[^<]*</span>')
ALLOWED_FILES = re.compile(r"(^|/)(searchindex\.js|_images/[0-9a-f]{64}\.(svg|png)|[^/]+\.ipynb)$")


def normalised(text: str) -> str:
    text = BADGE.sub(r"\1<date>\2\3<seconds>\4", text)
    text = ADDRESS.sub("0x…", text)
    text = IMAGE.sub("_images/<image>", text)
    text = PASTED.sub(lambda m: NUMBER.sub("#", m.group(0)), text)
    return "\n".join(NUMBER.sub("#", line) if "timing:" in line else line for line in text.splitlines())


def differences(first: Path, second: Path) -> list[str]:
    problems = []
    names = {p.relative_to(first) for p in first.rglob("*") if p.is_file()}
    others = {p.relative_to(second) for p in second.rglob("*") if p.is_file()}
    images = [
        sum(1 for name in files if ALLOWED_FILES.search(str(name)) and "_images" in str(name))
        for files in (names, others)
    ]
    if images[0] != images[1]:
        problems.append(f"the builds drew {images[0]} and {images[1]} images")
    for name in sorted(names ^ others):
        if not ALLOWED_FILES.search(str(name)):
            problems.append(f"{name}: in one build only")
    for name in sorted(names & others):
        a, b = (first / name).read_bytes(), (second / name).read_bytes()
        if a == b or ALLOWED_FILES.search(str(name)):
            continue
        try:
            a_lines = normalised(a.decode("utf-8")).splitlines()
            b_lines = normalised(b.decode("utf-8")).splitlines()
        except UnicodeDecodeError:
            problems.append(f"{name}: binary file differs")
            continue
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a_lines, b_lines, autojunk=False).get_opcodes():
            if tag != "equal":
                shown = "\n".join(
                    [*(f"  - {x[:300]}" for x in a_lines[i1:i2]), *(f"  + {y[:300]}" for y in b_lines[j1:j2])]
                )
                problems.append(f"{name}, line {i1 + 1}:\n{shown}")
    return problems


def main(made: Path | None) -> None:
    torch = book_settings.DEFAULT_TORCH
    sites, scratches = [], []
    env = {**os.environ, "SOURCE_DATE_EPOCH": build_runs.last_commit_time()}
    if made and made.is_dir():
        sites.append(made)
        print(f"clean build: {made}", flush=True)
    elif made:
        print(f"no {made}: both clean builds made here", flush=True)
    try:
        while len(sites) < 2:
            scratch = scratch_copy()
            scratches.append(scratch)  # a whole build: never left behind on the disk
            sites.append(scratch / "build" / "site")
            print(f"clean build in {scratch}", flush=True)
            subprocess.run(
                [sys.executable, "-m", "nox", "--no-color", "-s", f"docs(torch-{torch})"],
                cwd=scratch,
                check=True,
                stdout=subprocess.DEVNULL,
                env=env,
            )
        problems = differences(*sites)
    finally:
        for scratch in scratches:
            shutil.rmtree(scratch, ignore_errors=True)
    if problems:
        print(
            f"{len(problems)} difference(s) between two clean builds beyond the allowed ones "
            f"(tests/reproducible.py):\n" + "\n".join(problems)
        )
        sys.exit(1)
    print("two clean builds: identical but for the allowed differences (tests/reproducible.py)")


if __name__ == "__main__":
    if len(sys.argv) > 2:
        sys.exit("usage: reproducible.py [SITE OF A CLEAN BUILD]")
    main(Path(sys.argv[1]) if len(sys.argv) == 2 else None)
