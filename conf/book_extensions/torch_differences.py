"""Where another supported torch prints something else, the page says so, from the reviewed
snapshots (``snapshots``), never from typed text.

- Under a code cell whose printed lines differ: a fold "differs on torch …" with a diff of those
  lines (− this build's torch, + the other's).
- After a ``{glue:text}`` value that differs, in the page's format: "4.59 (torch 2.6.0: 5.61)".
- ``{torch-versions}`<chapter>/<idea>.py|<text>``` renders the supported versions whose snapshot of
  that snippet holds <text>, and fails the build with page and line when none does any more.

Sphinx: a transform, a node, a role, and myst-nb's ``glue:text`` role overridden; ``rereads.watch``
re-reads a page when one of its snapshots comes, changes or goes. Tests: tests/test_torch_differences.py.
"""

from __future__ import annotations

import html
from pathlib import Path

from docutils import nodes
from myst_nb.core.variables import format_plain_text
from myst_nb.ext.glue.roles import PasteTextRole
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole

from book_extensions import ENV_VERSION
import book_settings
from book_extensions import pages
from book_extensions import rereads
from book_extensions import snapshots
from book_extensions.snippet_cells import rendered_code_cells
from book_extensions.languages import text

logger = logging.getLogger(__name__)


class torch_difference(nodes.General, nodes.Element):
    """A folded block: <details><summary>…</summary> explanation and diff </details>."""


def visit_torch_difference(self, node):
    classes = " ".join(["torch-difference", *node["classes"]])  # another fold in this look names its own class
    self.body.append(f'<details class="{classes}"><summary>{html.escape(node["summary"])}</summary>')


def depart_torch_difference(self, node):
    self.body.append("</details>")


def _versions(versions: list[str]) -> str:
    return ", ".join(versions)


def _page(env) -> pages.Page:
    return pages.page_of(env)


def snapshot_files(page: pages.Page) -> list[Path]:
    """Every snapshot the page's snippets may have, shared and per version, existing or not."""
    return [
        snapshots.snapshot_path(snippet, torch)
        for snippet in page.snippets
        for torch in [None, *book_settings.TORCH_VERSIONS]
    ]


class CellDifferences(SphinxTransform):
    """Appends the folded differences to each code cell, found by the file its `:load:` names
    (myst-nb keeps it in the cell's metadata) and its place among the cells loading that file."""

    default_priority = 510  # after snippet_cells has put the download link on top of the cell

    def apply(self):
        rendered: dict[str, list[nodes.container]] = {}
        for node in rendered_code_cells(self.document):
            rendered.setdefault(node["cell_metadata"].get("load"), []).append(node)
        this_torch = snapshots.compared_torch()
        say = lambda key, **kw: text(self.env, key).format(**kw)  # noqa: E731
        seen: dict[str, int] = {}
        for cell in _page(self.env).code_cells:
            if not cell.loads_a_snippet or not cell.snippet.is_file():
                continue  # the page rules report it
            nth = seen[cell.load] = seen.get(cell.load, -1) + 1
            found = snapshots.differences(cell.snippet, this_torch)
            if not found:
                continue
            containers = rendered.get(cell.load, [])
            if nth >= len(containers):
                logger.error(
                    f"{pages.relative(cell.snippet)} prints differently on torch "
                    f"{_versions(found[0][0])}, but its cell was not rendered, so the page cannot say so",
                    location=(self.env.docname, cell.line),
                    type="snippet",
                    subtype="difference",
                )
                continue
            for versions, diff in found:
                snapshot = snapshots.expected_snapshot(cell.snippet, versions[0])
                block = torch_difference(summary=say("differs-summary", versions=_versions(versions)))
                block += nodes.paragraph(
                    "",
                    say(
                        "differs-explained",
                        this=this_torch,
                        versions=_versions(versions),
                        snapshot=pages.relative(snapshot),
                    ),
                )
                diff_text = "\n".join(diff)
                block += nodes.literal_block(diff_text, diff_text, language="book-output-diff")
                containers[nth] += block


class PasteTextWithVersions(PasteTextRole):
    """myst-nb's ``{glue:text}``, followed by the value on every supported torch that glues
    another one (from the snapshots of the page's snippets)."""

    def run(self):
        pasted, messages = super().run()
        key, spec = self.text.rsplit(":", 1) if ":" in self.text else (self.text, "s")  # as myst-nb splits it
        env = self.inliner.document.settings.env
        by_version = _glue_by_version(env)
        this_torch = snapshots.compared_torch()
        ours = by_version.get(this_torch, {}).get(key)
        if not pasted or "::" in key or ours is None:  # another page's value, or a timing
            return pasted, messages
        differing: dict[str, list[str]] = {}
        for torch, values in by_version.items():
            theirs = values.get(key)
            if torch != this_torch and theirs is not None and theirs != ours:
                shown = format_plain_text(theirs, spec)
                if shown != pasted[0].astext():  # a difference the format hides is no difference
                    differing.setdefault(shown, []).append(torch)
        for shown, versions in differing.items():
            note = text(env, "glue-differs").format(versions=_versions(versions), value=shown)
            pasted.append(nodes.inline(note, note, classes=["torch-glue-difference"]))
        return pasted, messages


def named_snippet(claim: str) -> Path:
    """The file `<chapter>/<idea>.py|<text>` names, resolved from snippets/ (it may not exist, or lie outside)."""
    return (pages.SNIPPETS / claim.partition("|")[0].strip()).resolve()


def versions_printing(claim: str) -> tuple[Path, list[str]]:
    """`<chapter>/<idea>.py|<text>` → (the snippet, the supported versions whose snapshot of it holds <text>)."""
    name, sep, wanted = claim.partition("|")
    snippet = named_snippet(claim)
    if not sep or not wanted or not snippet.is_file() or not pages.in_snippets(snippet):
        raise ValueError(
            f"write {{torch-versions}}`<chapter>/<idea>.py|<text it prints>`, not `{claim}`"
            + ("" if not sep or snippet.is_file() else f": there is no snippets/{name.strip()}")
        )
    if not snapshots.snapshot_path(snippet).is_file():
        raise ValueError(
            f"{pages.relative(snippet)} has no snapshot yet: once a page loads it, `nox -s tests` writes "
            f"{pages.relative(snapshots.snapshot_path(snippet))} for review"
        )
    return snippet, [
        torch
        for torch in book_settings.TORCH_VERSIONS
        if wanted in snapshots.expected_snapshot(snippet, torch).read_text(encoding="utf-8")
    ]


class TorchVersionsRole(SphinxRole):
    """{torch-versions}`<chapter>/<idea>.py|<text>`: which supported versions print <text> there."""

    def run(self):
        try:
            snippet, versions = versions_printing(self.text)
        except ValueError as error:
            logger.error(str(error), location=self.get_location(), type="snippet", subtype="versions")
            # The page is read again once the snippet or its snapshot exists (Sphinx counts a missing
            # dependency as changed): else a later build would keep the role empty, without an error.
            named = named_snippet(self.text)
            if named.suffix == ".py" and pages.in_snippets(named):
                self.env.note_dependency(str(named))
                self.env.note_dependency(str(snapshots.snapshot_path(named)))
            return [], []
        for torch in book_settings.TORCH_VERSIONS:  # the page's own snippets are watched; this one may be another's
            self.env.note_dependency(str(snapshots.expected_snapshot(snippet, torch)))
        if not versions:
            logger.error(
                f"no supported torch prints {self.text.partition('|')[2]!r} in {pages.relative(snippet)} "
                "any more: rewrite the sentence",
                location=self.get_location(),
                type="snippet",
                subtype="versions",
            )
            return [], []
        return [nodes.inline(self.rawtext, _versions(versions), classes=["torch-versions"])], []


def _glue_by_version(env) -> dict[str, dict[str, str | None]]:
    """{torch: {key: repr}} for the page being read, computed once per page."""
    cache = env.temp_data.setdefault("torch_differences_glue", {})
    if env.docname not in cache:
        cache[env.docname] = snapshots.glue_by_version(_page(env).snippets)
    return cache[env.docname]


def setup(app):
    app.add_node(torch_difference, html=(visit_torch_difference, depart_torch_difference))
    app.add_transform(CellDifferences)
    rereads.watch(app, "snapshots", snapshot_files)  # a version's snapshot added, changed or removed
    app.add_role_to_domain("glue", "text", PasteTextWithVersions(), override=True)
    app.add_role("torch-versions", TorchVersionsRole())
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
