"""The verification appendix: what each supported torch's test run recorded for every snippet and
claim check (build/records/torch-<version>.json; a build runs one torch, so it cannot run the others).

``{verification-verdict}`` is one sentence: verified in full, or what is not. ``{verification-report}``
gives per torch the tools and counts, a grid of each snippet's status (``STATUSES``: same as the shared
snapshot, reviewed = its version's own snapshot, unreviewed, failed, stale = the snippet or snapshot
changed since the run, missing), the snippets printing alike folded, then every reviewed difference.
A record counts only for the code it ran. With BOOK_PUBLISH set (book_settings.PUBLISH_ENV), a
verdict short of full verification fails the build: a site for readers shows no partial record.

Sphinx: two directives; ``rereads.watch`` re-reads the page when a record or snapshot changes.
Tests: tests/test_torch_differences.py, tests/browser/test_browser.py (the verdict opens the page).
"""

from __future__ import annotations

import functools
import json
import os
import platform
from datetime import datetime, timezone
from importlib.metadata import version

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from book_extensions import ENV_VERSION
import book_settings
from book_extensions import pages
from book_extensions import rereads
from book_extensions.callouts import table
from book_extensions.claims import check_hash, checks_that_parse
from book_extensions import snapshots
from book_extensions.languages import text
from book_extensions.torch_differences import torch_difference

logger = logging.getLogger(__name__)

RECORDS = book_settings.RECORDS


def _diff_id(snippet: str, torch: str) -> str:
    return nodes.make_id(f"diff {snippet.removeprefix('snippets/')} torch {torch}")


def _when(stamp: str | None) -> str:
    return stamp.replace("T", " ").replace("+00:00", " UTC") if stamp else "—"


def build_time() -> datetime:
    """SOURCE_DATE_EPOCH when it is set (the builds nox -s reproducible compares), else now."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    return datetime.fromtimestamp(int(epoch), tz=timezone.utc) if epoch else datetime.now(timezone.utc)


class Findings(SphinxDirective):
    """What the records say: per version, each snippet's status and how many checks passed."""

    has_content = False

    def findings(self):
        versions = book_settings.TORCH_VERSIONS
        snippets = sorted(pages.relative(s) for s in loaded_snippets())
        current = {name: pages.snippet_hash(pages.ROOT / name) for name in snippets}
        records = {}
        for torch in versions:
            path = RECORDS / f"torch-{torch}.json"  # watched by record_files: a record may come later
            if path.is_file():
                records[torch] = json.loads(path.read_text(encoding="utf-8"))
        statuses = {
            torch: {name: self._status(records.get(torch), name, current[name], torch) for name in snippets}
            for torch in versions
        }
        checks, unparsable = checks_that_parse()
        for error in unparsable:  # its checks are not counted
            logger.error(
                f"left out of the checks counted here, as it does not parse: {error}", location=self.get_location()
            )
        for claims_file in pages.SNIPPETS.glob(f"*/{pages.CLAIMS_FILE}"):
            self.env.note_dependency(str(claims_file))  # a changed check makes its old records stale
        passed_checks = {
            torch: sum(
                record.get("claims", {}).get(check, {}).get("sha256") == check_hash(source)
                and record["claims"][check]["status"] == "passed"
                for check, source in checks.items()
            )
            for torch, record in records.items()
        }
        return snippets, records, statuses, checks, passed_checks

    def say(self, key, **kw) -> str:
        return text(self.env, key).format(**kw)

    @staticmethod
    def _verdict(statuses, passed_checks, total_checks, say) -> tuple[str, bool]:
        """One sentence, and whether it is the full verdict: every supported torch ran every snippet
        and check; or what did not hold."""
        versions = book_settings.TORCH_VERSIONS
        problems = []
        for torch in versions:
            found = list(statuses[torch].values())
            if "no-record" in found:
                problems.append(say("verdict-no-record", torch=torch))
                continue
            bad = {
                status: found.count(status)
                for status in STATUSES
                if status not in ("same", "reviewed") and found.count(status)
            }
            if bad:
                problems.append(
                    say(
                        "verdict-snippets",
                        torch=torch,
                        what=", ".join(f"{count} {say('status-' + status)}" for status, count in bad.items()),
                    )
                )
            if passed_checks.get(torch, 0) != total_checks:
                problems.append(
                    say("verdict-checks", torch=torch, passed=passed_checks.get(torch, 0), total=total_checks)
                )
        if problems:
            return say("verdict-open", problems="; ".join(problems)), False
        reviewed = sum(any(statuses[torch][name] == "reviewed" for torch in versions) for name in statuses[versions[0]])
        return say(
            "verdict-all",
            count=len(versions),
            versions=", ".join(versions),
            checks=total_checks,
            snippets=len(statuses[versions[0]]),
            reviewed=reviewed,
        ), True

    @staticmethod
    def _status(record, name, sha, torch) -> str:
        if record is None:
            return "no-record"
        entry = record["snippets"].get(name)
        if entry is None:
            return "missing"
        snapshot = snapshots.expected_snapshot(pages.ROOT / name, torch)
        if entry["sha256"] != sha or entry.get("snapshot_sha256") != pages.snippet_hash(snapshot):
            return "stale"
        if entry["status"] == "passed":
            return "same" if snapshot == snapshots.snapshot_path(pages.ROOT / name) else "reviewed"
        return "unreviewed" if entry["status"] == "differs" else entry["status"]


class VerificationVerdict(Findings):
    """The report's verdict in one sentence, for the top of the page."""

    def run(self):
        snippets, records, statuses, checks, passed_checks = self.findings()
        sentence, verified = self._verdict(statuses, passed_checks, len(checks), self.say)
        if not verified and self.config.book_publish:
            # A site for readers: a partial record would make most ✓ say "no test record yet".
            logger.error(
                f"book_publish is set ({book_settings.PUBLISH_ENV}), but the records do not verify the book: "
                f"{sentence}",
                location=(self.env.docname, self.lineno),
                type="verification",
                subtype="verdict",
            )
        return [nodes.paragraph("", sentence, classes=["verification-verdict"])]


class VerificationReport(Findings):
    def run(self):
        say = self.say
        versions, default = book_settings.TORCH_VERSIONS, book_settings.DEFAULT_TORCH
        snippets, records, statuses, checks, passed_checks = self.findings()
        this_build = say(
            "report-this-build",
            torch=self.config.book_torch,
            python=platform.python_version(),
            sphinx=version("sphinx"),
            myst_nb=version("myst-nb"),
            date=f"{build_time():%Y-%m-%d %H:%M} UTC",
        )
        summary = []
        for torch in versions:
            record = records.get(torch)
            if record is None:
                summary.append([torch, say("report-no-record"), "", "", "", ""])
                continue
            found = list(statuses[torch].values())
            counts = ", ".join(f"{found.count(s)} {say('status-' + s)}" for s in STATUSES if found.count(s))
            counts += "; " + say("report-claims", passed=passed_checks[torch], total=len(checks))
            summary.append(
                [
                    torch + (say("report-default") if torch == default else ""),
                    _when(record.get("last_passed")),
                    _when(record["updated"]),
                    record["python"],
                    f"Sphinx {record['sphinx']}, myst-nb {record['myst_nb']}",
                    counts,
                ]
            )
        differing, same = [], []
        for name in snippets:
            row = [name.removeprefix("snippets/")]
            for torch in versions:
                status = statuses[torch][name]
                label = say("status-" + status)
                if status == "reviewed":
                    cell = nodes.paragraph()
                    cell += nodes.reference("", label, refid=_diff_id(name, torch), internal=True)
                    row.append(cell)
                else:
                    row.append(label)
            (same if all(statuses[torch][name] == "same" for torch in versions) else differing).append(row)
        header = [say("col-snippet"), *[f"torch {v}" for v in versions]]
        folded = torch_difference(
            summary=say("report-same-folded", count=len(same), default=default), classes=["verification-same"]
        )  # not a difference: the rows that have none
        folded += table(header, same, ["verification-grid"])
        return [
            nodes.paragraph("", this_build),
            table(
                [
                    say("col-torch"),
                    say("col-passed"),
                    say("col-updated"),
                    "Python",
                    say("col-tools"),
                    say("col-result"),
                ],
                summary,
                ["verification-summary"],
            ),
            nodes.paragraph("", say("report-grid-explained", default=default)),
            *([table(header, differing, ["verification-grid"])] if differing else []),
            *([folded] if same else []),
            *self._reviewed_differences(snippets, default, say),
        ]

    def _reviewed_differences(self, snippets, default, say) -> list[nodes.Node]:
        """Each reviewed difference from the default torch's output, with the anchor the grid links to."""
        found = []
        for name in snippets:
            for versions, diff in snapshots.differences(pages.ROOT / name, default):
                title = nodes.paragraph(ids=[_diff_id(name, torch) for torch in versions])
                title += nodes.literal(text=name.removeprefix("snippets/"))
                title += nodes.Text(say("report-diff-title", default=default, versions=", ".join(versions)))
                diff_text = "\n".join(diff)
                found += [title, nodes.literal_block(diff_text, diff_text, language="diff")]
        if not found:
            return [nodes.paragraph("", say("report-no-differences", default=default))]
        return [nodes.paragraph("", say("report-differences", default=default)), *found]


# In the order the summary counts them.
STATUSES = ("same", "reviewed", "unreviewed", "failed", "stale", "missing")


@functools.cache
def loaded_snippets() -> frozenset:
    """Every snippet a page of either language loads (the pages do not change while Sphinx runs); a
    missing one is its page's error."""
    return frozenset(
        s for lang in pages.LANGUAGES for p in pages.book_pages(lang).values() for s in p.snippets if s.is_file()
    )


def _reports(page: pages.Page) -> bool:
    return any(directive.name in ("verification-report", "verification-verdict") for directive in page.directives)


def every_snapshot(page: pages.Page) -> list:
    """The report lists every version's snapshot of every snippet: re-read it when one comes or goes."""
    if not _reports(page):
        return []
    return [
        snapshots.snapshot_path(s, torch)
        for s in sorted(loaded_snippets())
        for torch in [None, *book_settings.TORCH_VERSIONS]
    ]


def record_files(page: pages.Page) -> list:
    """The report shows each torch's test record: re-read it when one is written, comes or goes."""
    return [RECORDS / f"torch-{torch}.json" for torch in book_settings.TORCH_VERSIONS] if _reports(page) else []


def setup(app):
    app.setup_extension("book_extensions.badges")  # declares book_torch
    # A site for readers: the build fails unless the records verify every snippet and check on every torch.
    app.add_config_value("book_publish", False, "env", bool)
    app.add_directive("verification-report", VerificationReport)
    app.add_directive("verification-verdict", VerificationVerdict)
    rereads.watch(app, "all-snapshots", every_snapshot)
    rereads.watch(app, "records", record_files)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
