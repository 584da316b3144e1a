"""Which snippets print differently from the default torch, per version last tested (nox -s drift).

Reads build/records/torch-<version>.json, written by each version's `nox -s tests`, and prints,
for every other version, a unified diff of the normalised output of each snippet that differs
from the default's, then the list of those snippets. It also says whether each difference is
reviewed, i.e. has the version's own snapshot (tests/snapshots/<chapter>/<idea>.torch-<v>.txt);
the verification appendix lists the same snippets from the same files.

Usage: python tests/drift.py RECORDS_DIR DEFAULT_VERSION VERSION [VERSION ...]
       python tests/drift.py --record FILE   (one run against the snapshots it was held to: the canary)
Exits 0 whatever differs: drift is a report, not a failure; 1 when records are missing, 2 when
a snippet failed to run.
"""

import difflib
import json
import sys
from pathlib import Path

from book_settings import ROOT, TESTS

SNAPSHOTS = TESTS / "snapshots"


def own_snapshot(snippet: str, torch: str) -> Path:
    return SNAPSHOTS / Path(snippet).relative_to("snippets").with_suffix(f".torch-{torch}.txt")


def read(path: Path) -> dict | None:
    return json.loads(path.read_text(encoding="utf-8"))["snippets"] if path.is_file() else None


def against_snapshots(path: Path) -> int:
    """The canary's report: each snippet whose output differs from the snapshot it was held to."""
    if not path.is_file():
        print(f"no record at {path}: the test run wrote none")
        return 1
    record = json.loads(path.read_text(encoding="utf-8"))
    torch, held_to = record["torch"], record["snapshots_of"]
    differing = failed = 0
    for snippet, entry in sorted(record["snippets"].items()):
        if entry["status"] == "failed":
            failed += 1
            print(f"== {snippet}: FAILED to run under torch {torch}\n{entry['output']}")
        elif entry["status"] == "differs":
            differing += 1
            expected = (ROOT / entry["snapshot"]).read_text(encoding="utf-8")
            print(f"== {snippet}: torch {held_to} snapshot vs torch {torch}")
            sys.stdout.writelines(
                difflib.unified_diff(
                    expected.splitlines(keepends=True),
                    entry["output"].splitlines(keepends=True),
                    fromfile=entry["snapshot"],
                    tofile=f"torch {torch}",
                )
            )
    print(
        f"torch {torch} against the snapshots of torch {held_to}: {len(record['snippets'])} snippets, "
        f"{differing} differ, {failed} failed to run"
    )
    return 2 if failed else 0


def main(args: list[str]) -> int:
    if args[:1] == ["--record"]:
        return against_snapshots(Path(args[1]))
    folder, default, *others = args
    paths = {torch: Path(folder) / f"torch-{torch}.json" for torch in [default, *others]}
    records = {name: read(path) for name, path in paths.items()}
    for name, record in records.items():
        if record is None:
            print(f'{name}: no record at {paths[name]} (run `nox -s "tests(torch-{name})"` first)')
    if records[default] is None or not any(records[name] is not None for name in records if name != default):
        print("drift needs the records of the default torch and at least one other")
        return 1
    for name, record in records.items():
        if name == default or record is None:
            continue
        common = sorted(records[default].keys() & record.keys())
        differing = []
        for snippet in common:
            old, new = records[default][snippet]["output"], record[snippet]["output"]
            if old != new:
                differing.append(snippet)
                print(f"== {snippet}: torch {default} vs {name}")
                sys.stdout.writelines(
                    difflib.unified_diff(
                        old.splitlines(keepends=True),
                        new.splitlines(keepends=True),
                        fromfile=f"torch {default}",
                        tofile=f"torch {name}",
                    )
                )
        only = sorted(records[default].keys() ^ record.keys())
        if only:
            print(f"recorded under only one of torch {default} and {name}: {', '.join(only)}")
        print(
            f"torch {default} vs {name}: {len(common)} snippets compared, "
            + (f"{len(differing)} differ" if differing else "no difference")
        )
        for snippet in differing:
            reviewed = own_snapshot(snippet, name).is_file()
            print(
                f"  {snippet}: "
                + (
                    f"reviewed ({own_snapshot(snippet, name).relative_to(ROOT)})"
                    if reviewed
                    else "not reviewed (no snapshot of its own)"
                )
            )
        stray = sorted(snippet for snippet in set(common) - set(differing) if own_snapshot(snippet, name).is_file())
        if stray:
            print(f"  snippets with their own torch {name} snapshot that no longer differ: {', '.join(stray)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
