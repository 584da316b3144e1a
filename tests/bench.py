"""`nox -s bench`: how far the build and the tests of the default torch are from the floor.

Everything runs in a scratch copy of this working tree (its .nox linked, so the venvs are shared;
this checkout's build/ is never touched). Each step runs as a child of a fresh wrapper process
that reports the step's wall time and the peak resident memory of the largest process it waited
for (getrusage RUSAGE_CHILDREN). Snippet executions are counted as they happen: every code cell a
docs kernel runs (conf/kernel_startup.py), every cell Sybil runs (tests/code_cells.py), and every
run started by a prewarmed.Server (snapshot runs, judge runs) append a line to BOOK_EXECUTION_LOG.

The floor: one Python process imports torch once and runs every snippet a page loads; plus Sphinx
for zh and en with execution off. The steps: cold docs (empty build/), no-change rebuild, a
prose-only edit, a one-snippet edit (a comment line, so the code changes but not the output),
`nox -s tests` of the default torch, and the same with only the tests each other torch runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "conf"))
import book_settings  # noqa: E402

EXECUTION_LOG = "BOOK_EXECUTION_LOG"
# The floor's first half, run by the venv's python from the root: every loaded snippet, in one process.
FLOOR_SNIPPETS = """\
import io, json, os, runpy, sys, time, contextlib
start = time.perf_counter()
import torch
snippets = json.loads(sys.argv[1])
for snippet in snippets:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            runpy.run_path(snippet, run_name="__main__")
        except Exception:
            pass  # a snippet loaded by a raises-exception cell
print(json.dumps({"snippets": len(snippets)}))
"""


def measured(command: list[str], cwd: Path, env: dict[str, str]) -> dict:
    """Run `command` under a fresh wrapper; its wall time, the peak RSS of its largest process, its output."""
    wrapper = (
        "import json, resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "seconds = time.perf_counter() - start\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(json.dumps({'seconds': seconds, 'peak_kib': peak, 'returncode': done.returncode,"
        " 'output': done.stdout + done.stderr}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", wrapper, *command], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout)
    if result["returncode"]:
        failed = [line for line in result["output"].splitlines() if line.startswith(("FAILED", "ERROR"))]
        sys.exit(f"bench: {' '.join(command)} failed in {cwd}:\n" + "\n".join(failed) + result["output"][-3000:])
    return result


def scratch_copy() -> Path:
    """This working tree's files (committed or not, nothing ignored) in a temporary folder, .nox linked."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-"))
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (scratch / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, scratch / name)
    (scratch / ".nox").symlink_to(ROOT / ".nox")
    return scratch


def loaded_snippets(python: Path, root: Path) -> list[str]:
    """Every snippet a page of either language loads, in the venv (the page model needs myst-parser)."""
    listed = subprocess.run(
        [
            str(python),
            "-c",
            "import json; from snippet_runs import all_loaded_cells, pages; "
            "print(json.dumps(sorted(pages.relative(s) for s in all_loaded_cells())))",
        ],
        cwd=root,
        env={**os.environ, "PYTHONPATH": f"{root / 'conf'}:{root / 'tests'}"},
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(listed.stdout)


# What wrote each line of the log: a docs kernel, Sybil, or a prewarmed run of a file or of a module.
KINDS = {"kernel": "docs kernel", "sybil": "Sybil", "fork-file": "snapshot runs", "fork-module": "judge runs"}


def count_executions(log: Path) -> Counter:
    lines = log.read_text().splitlines() if log.is_file() else []
    counted = Counter(KINDS.get(line.split(" ", 1)[0], line) for line in lines)
    log.unlink(missing_ok=True)
    return counted


def main() -> None:
    torch = book_settings.DEFAULT_TORCH
    python = ROOT / ".nox" / f"torch-{torch}" / "bin" / "python"
    if not python.is_file():
        sys.exit(f"bench: no {python.relative_to(ROOT)}; run nox -s docs(torch-{torch}) once first")
    scratch = scratch_copy()
    log = scratch / "executions.log"
    env = {**os.environ, **book_settings.RUN_ENV, "PYTHONPATH": str(scratch / "conf"), EXECUTION_LOG: str(log)}
    env.pop("BOOK_DISCARD_VENVS", None)
    nox = [sys.executable, "-m", "nox", "--no-color"]
    rows = []

    def step(name: str, command: list[str]) -> dict:
        result = measured(command, scratch, env)
        result |= {"name": name, "executions": count_executions(log)}
        rows.append(result)
        print(f"  {name}: {result['seconds']:.1f} s", flush=True)
        return result

    try:
        print(f"bench in {scratch} (torch {torch}, {os.cpu_count()} cores)", flush=True)
        snippets = loaded_snippets(python, scratch)
        floor_run = step(
            "floor: one process runs every snippet", [str(python), "-c", FLOOR_SNIPPETS, json.dumps(snippets)]
        )
        floor_run["executions"] = Counter(one_process=len(snippets))
        sphinx = [
            str(python),
            "-c",
            "import subprocess, sys\n"
            "for tree in sys.argv[1:]:\n"
            "    subprocess.run([sys.executable, '-m', 'sphinx', '-q', '-b', 'html', '-c', 'conf',\n"
            "                    '-D', f'language={tree}', '-D', 'nb_execution_mode=off',\n"
            "                    '-d', f'build-floor/{tree}/doctrees', f'docs/{tree.split(\"_\")[0]}',\n"
            "                    f'build-floor/{tree}/html'], check=False, capture_output=True)\n",
            *book_settings.LANGUAGES.values(),
        ]
        step("floor: Sphinx zh + en, execution off", sphinx)
        docs = [*nox, "-s", f"docs(torch-{torch})"]
        step("cold docs (empty build/)", docs)
        step("no-change rebuild", docs)
        page = scratch / "docs" / "zh" / "graph-lifecycle.md"
        page_text = page.read_text(encoding="utf-8")
        page.write_text(page_text + "\n本段为基准测试所加。\n", encoding="utf-8")
        step("prose-only edit (one zh page)", docs)
        snippet = scratch / snippets[0]
        snippet_text = snippet.read_text(encoding="utf-8")
        snippet.write_text(snippet_text + "# bench: the code changes, the output does not\n", encoding="utf-8")
        step(f"one-snippet edit ({snippets[0]})", docs)
        page.write_text(page_text, encoding="utf-8")  # the tests run on the tree as it was copied
        snippet.write_text(snippet_text, encoding="utf-8")
        tests = step(f"nox -s tests(torch-{torch})", [*nox, "-s", f"tests(torch-{torch})"])
        # What every other torch runs: its session leaves out the torch-independent tests (noxfile).
        per_torch = step(
            "the same, torch-dependent tests only (as each other torch)",
            [
                *nox,
                "-s",
                f"tests(torch-{torch})",
                "--",
                "-m",
                "not browser and not torch_independent and not built_site",
            ],
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    snippet_floor = rows[0]["seconds"]
    floor = snippet_floor + rows[1]["seconds"]
    print(
        f"\nbench, torch {torch}, {os.cpu_count()} cores; floor = {floor:.1f} s "
        f"(snippets {snippet_floor:.1f} s + Sphinx {rows[1]['seconds']:.1f} s)\n"
    )
    print("| step | wall time | × floor | × snippet floor | snippet executions | peak RSS |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        runs = row["executions"]
        described = ", ".join(f"{kind} {count}" for kind, count in sorted(runs.items())) or "0"
        print(
            f"| {row['name']} | {row['seconds']:.1f} s | {row['seconds'] / floor:.2f} | "
            f"{row['seconds'] / snippet_floor:.1f} | {sum(runs.values())} ({described}) | "
            f"{row['peak_kib'] / 1024:.0f} MiB |"
        )
    cold, unchanged = rows[2]["seconds"], rows[3]["seconds"]
    print(
        f"\nno-change rebuild = {unchanged / cold:.0%} of cold; "
        f"cold = {cold / floor:.2f} × floor; tests = {tests['seconds'] / snippet_floor:.1f} × snippet floor "
        f"({per_torch['seconds'] / snippet_floor:.1f} × for each other torch)"
    )


if __name__ == "__main__":
    main()
