"""Which snippets print differently under the torch versions last tested (nox -s drift).

Reads build/records/torch-<version>.json, written by each version's `nox -s tests`, and prints a
unified diff of the normalised output of every snippet that differs; "no difference" otherwise.
Usage: python tests/drift.py RECORDS_DIR VERSION [VERSION ...]
"""

import difflib
import json
import sys
from pathlib import Path


def main(folder: str, *versions: str) -> int:
    records = {}
    for torch in versions:
        path = Path(folder) / f"torch-{torch}.json"
        if path.is_file():
            records[torch] = json.loads(path.read_text(encoding="utf-8"))["snippets"]
        else:
            print(f"torch {torch}: no record at {path} (run `nox -s \"tests(torch-{torch})\"` first)")
    if len(records) < 2:
        print("drift needs the records of at least two torch versions")
        return 1
    base, *others = records
    differing = 0
    for other in others:
        common = sorted(records[base].keys() & records[other].keys())
        for snippet in common:
            old, new = records[base][snippet]["output"], records[other][snippet]["output"]
            if old != new:
                differing += 1
                print(f"== {snippet}: torch {base} vs {other}")
                sys.stdout.writelines(difflib.unified_diff(
                    old.splitlines(keepends=True), new.splitlines(keepends=True),
                    fromfile=f"torch {base}", tofile=f"torch {other}"))
        only = sorted(records[base].keys() ^ records[other].keys())
        if only:
            print(f"recorded under only one of torch {base} and {other}: {', '.join(only)}")
        print(f"torch {base} vs {other}: {len(common)} snippets compared, "
              + (f"{differing} differ" if differing else "no difference"))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
