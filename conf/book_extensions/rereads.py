"""Re-read a page when a file it depends on appears, changes or disappears.

Sphinx's own ``env.note_dependency`` takes files only: a dependency that does not exist (yet)
counts as changed on every build, and a directory is not a file. Pages here depend on files that
come and go: a torch version's own snapshot of a snippet, a version's test record. ``watch``
keeps a fingerprint (path and modification time of each such file that exists) per page when the
page is read, and on the next build asks Sphinx to re-read the pages whose fingerprint changed
(the ``env-get-outdated`` event).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from book_extensions import pages


def watch(app, name: str, files_of: Callable[[pages.Page], list[Path]]) -> None:
    """Re-read a page whenever the set or the times of the existing ``files_of(page)`` change."""
    attribute = f"book_fingerprints_{name}"

    def stored(env) -> dict[str, tuple]:
        if not hasattr(env, attribute):
            setattr(env, attribute, {})
        return getattr(env, attribute)

    def fingerprint(page: pages.Page) -> tuple:
        return tuple((str(path), path.stat().st_mtime_ns) for path in files_of(page) if path.is_file())

    def remember(app, docname, source):
        stored(app.env)[docname] = fingerprint(pages.page_of(app.env, docname))

    def outdated(app, env, added, changed, removed):
        return [docname for docname, old in stored(env).items()
                if docname in env.found_docs and docname not in removed | changed
                and fingerprint(pages.page_of(env, docname)) != old]

    def purge(app, env, docname):
        stored(env).pop(docname, None)

    def merge(app, env, docnames, other):
        stored(env).update({d: f for d, f in stored(other).items() if d in docnames})

    app.connect("source-read", remember)
    app.connect("env-get-outdated", outdated)
    app.connect("env-purge-doc", purge)
    app.connect("env-merge-info", merge)
