"""The verification report: which snippet passed under which torch, from the test runs' records.

A build has one torch, so it cannot run the others; each version's `nox -s tests` writes
build/records/torch-<version>.json and this directive renders what it finds there:

    ```{verification-report}
    ```

An entry is *stale* when the snippet changed after that run (its hash differs), *missing* when
the record has no entry for it, and a version without a record file says so.
"""

from __future__ import annotations

import json
import platform
from datetime import datetime, timezone
from importlib.metadata import version

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

import pages
from languages import text

RECORDS = pages.ROOT / "build" / "records"


def _table(header: list[str], rows: list[list[str]], classes: list[str]) -> nodes.table:
    table = nodes.table(classes=classes)
    group = nodes.tgroup(cols=len(header))
    table += group
    group.extend(nodes.colspec(colwidth=1) for _ in header)
    for part, lines in ((nodes.thead(), [header]), (nodes.tbody(), rows)):
        for cells in lines:
            row = nodes.row()
            for cell in cells:
                row += nodes.entry("", nodes.paragraph("", cell))
            part += row
        group += part
    return table


class VerificationReport(SphinxDirective):
    has_content = False

    def run(self):
        env, say = self.env, lambda key, **kw: text(self.env, key).format(**kw)
        versions = pages.torch_versions()
        snippets = sorted({pages.relative(s) for lang in pages.LANGUAGES
                           for page in pages.book_pages(lang).values() for s in page.snippets})
        current = {name: pages.snippet_hash(pages.ROOT / name) for name in snippets}
        records = {}
        for torch in versions:
            path = RECORDS / f"torch-{torch}.json"
            env.note_dependency(str(path))  # a missing file keeps the page outdated until it appears
            if path.is_file():
                records[torch] = json.loads(path.read_text(encoding="utf-8"))

        this_build = say("report-this-build", torch=version("torch").split("+")[0], python=platform.python_version(),
                         sphinx=version("sphinx"), myst_nb=version("myst-nb"),
                         date=f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
        summary = []
        for torch in versions:
            record = records.get(torch)
            if record is None:
                summary.append([torch, say("report-no-record"), "", "", ""])
                continue
            statuses = [self._status(record, name, current[name]) for name in snippets]
            counts = ", ".join(f"{statuses.count(s)} {say('status-' + s)}"
                               for s in ("passed", "differs", "failed", "stale", "missing") if statuses.count(s))
            summary.append([torch, record["updated"].replace("T", " ").replace("+00:00", " UTC"),
                            record["python"], f"Sphinx {record['sphinx']}, myst-nb {record['myst_nb']}", counts])
        grid = []
        for name in snippets:
            row = [name.removeprefix("snippets/")]
            for torch in versions:
                record = records.get(torch)
                status = self._status(record, name, current[name]) if record else "no-record"
                entry = (record or {}).get("snippets", {}).get(name, {})
                seconds = f" · {entry['seconds']:.1f} s" if status in ("passed", "differs") else ""
                row.append(say("status-" + status) + seconds)
            grid.append(row)
        return [
            nodes.paragraph("", this_build),
            _table([say("col-torch"), say("col-updated"), "Python", say("col-tools"), say("col-result")],
                   summary, ["verification-summary"]),
            _table([say("col-snippet"), *[f"torch {v}" for v in versions]], grid, ["verification-grid"]),
        ]

    @staticmethod
    def _status(record, name, sha) -> str:
        entry = record["snippets"].get(name)
        if entry is None:
            return "missing"
        if entry["sha256"] != sha:
            return "stale"
        return entry["status"]


def setup(app):
    app.add_directive("verification-report", VerificationReport)
    return {"parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": pages.extension_version(__file__)}
