"""What a test run found for each snippet under one torch: the record the verification page reads.

`nox -s tests` writes build/records/torch-<version>.json; each snippet's entry says whether its
output matched the snapshot, how long it ran, when, the hash of the snippet it ran and of the
snapshot it was compared with, so that the page can tell a stale entry from a fresh one. Only a
run of every snippet and claim check writes the record, and it replaces the last one; `last_passed`
is the time of the last such run that passed as a whole.
"""

from __future__ import annotations

import json
import platform
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

from book_extensions import pages
from book_extensions import snapshots


class Records:
    def __init__(self, folder: Path, torch: str):
        self.path = Path(folder) / f"torch-{torch}.json"
        self.torch = torch
        self.entries: dict[str, dict] = {}
        self.claims: dict[str, dict] = {}

    def add(self, run, status: str) -> None:
        compared = snapshots.expected_snapshot(run.snippet)
        self.entries[pages.relative(run.snippet)] = {
            "status": status,
            "snapshot": pages.relative(compared),
            "snapshot_sha256": pages.snippet_hash(compared) if compared.is_file() else None,
            "seconds": round(run.seconds, 2),
            "sha256": pages.snippet_hash(run.snippet),
            "ran_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "output": run.output,
        }

    def add_claim(self, check: str, sha256: str, status: str) -> None:
        """A claim check's result: the page's mark shows the versions where this code passed."""
        self.claims[check] = {
            "status": status,
            "sha256": sha256,
            "ran_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }

    def found(self) -> dict:
        """What this run found, as plain data (an xdist worker sends it to the controller)."""
        return {"entries": self.entries, "claims": self.claims}

    def merge(self, found: dict) -> None:
        self.entries.update(found["entries"])
        self.claims.update(found["claims"])

    def covers(self, snippets: set[str], checks: set[str]) -> bool:
        """Whether this run checked exactly every snippet and every claim check: only then is it written."""
        return set(self.entries) == snippets and set(self.claims) == checks

    def write(self, passed: bool) -> None:
        old = json.loads(self.path.read_text(encoding="utf-8")) if self.path.is_file() else {}
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        record = {
            "torch": self.torch,
            "torch_build": version("torch"),
            "python": platform.python_version(),
            "sphinx": version("sphinx"),
            "myst_nb": version("myst-nb"),
            "snapshots_of": snapshots.compared_torch(),
            "updated": now,
            "last_passed": now if passed else old.get("last_passed"),
            "snippets": self.entries,
            "claims": self.claims,
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(record, indent=1, ensure_ascii=False, sort_keys=True), encoding="utf-8")
