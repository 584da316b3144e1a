"""The book's Sphinx extensions, one concern per module; conf.py lists them as ``book_extensions.<name>``.

``pages`` is the page model every extension and test reads; the others each add one thing to
the build (twins, snippet cells, badges, claims, …). Facts shared with the noxfile and the tests
(languages, torch versions, paths) live in ``conf/book_settings.py``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

_CONF = Path(__file__).resolve().parents[1]


def _sources() -> list[Path]:
    """Everything that changes how a page is read: this package, the settings, and the data
    files and templates the extensions load."""
    found = [*Path(__file__).parent.glob("*.py"), _CONF / "book_settings.py", *_CONF.glob("*.toml"),
             *(_CONF / "_templates").rglob("*.html"), *(_CONF / "locales").rglob("*.po"),
             _CONF.parent / "docs" / "glossary.toml"]
    return sorted(p for p in found if p.is_file())


def _env_version() -> int:
    digest = hashlib.sha256()
    for source in _sources():
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return int(digest.hexdigest()[:8], 16)


# Every extension returns this `env_version`: a change to any of their sources (pages.py, which
# all of them import, included) makes Sphinx re-read every page instead of keeping pages as the
# old code rendered them.
ENV_VERSION = _env_version()
