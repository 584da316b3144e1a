"""Re-read a page when a file it depends on appears, changes or disappears.

Sphinx's own ``env.note_dependency`` takes files only: a dependency that does not exist (yet)
counts as changed on every build, and a directory is not a file. Pages here depend on files that
come and go: a torch version's own snapshot of a snippet, a version's test record. ``watch``
keeps a fingerprint (path and modification time of each such file that exists) per page when the
page is read, and on the next build asks Sphinx to re-read the pages whose fingerprint changed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from book_extensions import pages


class Fingerprints(pages.PerPage):
    """env.book_fingerprints_<name>: docname → the fingerprint of ``files_of(page)`` when it was read."""

    files_of: Callable[[pages.Page], list[Path]]

    def enable(self, app):
        super().enable(app)
        # Taken before the page's own handlers read the files: a later change is seen by the next build.
        self.listener_ids["source-read"] = app.connect("source-read", self.remember)

    def fingerprint(self, env, docname: str) -> tuple:
        found = self.files_of(pages.page_of(env, docname))
        return tuple((str(path), path.stat().st_mtime_ns) for path in found if path.is_file())

    def remember(self, app, docname, source):
        self.stored(app.env)[docname] = self.fingerprint(app.env, docname)

    def process_doc(self, app, doctree):
        pass  # fingerprinted at source-read

    def get_outdated_docs(self, app, env, added, changed, removed):
        return [
            docname
            for docname, old in self.stored(env).items()
            if docname in env.found_docs and docname not in removed | changed and self.fingerprint(env, docname) != old
        ]


def watch(app, name: str, files_of: Callable[[pages.Page], list[Path]]) -> None:
    """Re-read a page whenever the set or the times of the existing ``files_of(page)`` change."""
    app.add_env_collector(
        type(
            f"Fingerprints_{name}",
            (Fingerprints,),
            {"attribute": f"book_fingerprints_{name}", "files_of": staticmethod(files_of)},
        )
    )
