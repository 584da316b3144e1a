"""What a test run found for each snippet under one torch: the record the verification page reads.

`nox -s tests` writes build/records/torch-<version>.json; each snippet's entry says whether its
output matched the snapshot, how long it ran, when, and the hash of the snippet it ran, so that
the page can tell a stale entry from a fresh one. A partial run (`-k`) updates only its entries.
"""

from __future__ import annotations

import json
import platform
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

import pages


class Records:
    def __init__(self, folder: Path, torch: str):
        self.path = Path(folder) / f"torch-{torch}.json"
        self.torch = torch
        self.entries: dict[str, dict] = {}

    def add(self, run, status: str) -> None:
        self.entries[pages.relative(run.snippet)] = {
            "status": status,
            "seconds": round(run.seconds, 2),
            "sha256": pages.snippet_hash(run.snippet),
            "ran_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "output": run.output,
        }

    def write(self) -> None:
        if not self.entries:
            return
        old = json.loads(self.path.read_text(encoding="utf-8")) if self.path.is_file() else {}
        record = {
            "torch": self.torch,
            "torch_build": version("torch"),
            "python": platform.python_version(),
            "sphinx": version("sphinx"),
            "myst_nb": version("myst-nb"),
            "updated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "snippets": {**old.get("snippets", {}), **self.entries},
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")
