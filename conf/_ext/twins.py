"""Every page exists in both languages: a page without its twin fails the build, by name.

Without this, a missing twin surfaces only as a toctree warning about a "nonexisting
document" in the other language's index.
"""

from __future__ import annotations

from sphinx.util import logging

import pages

logger = logging.getLogger(__name__)


def check_twins(app):
    trees = {language: {p.relative_to(pages.DOCS / language) for p in (pages.DOCS / language).rglob("*.md")}
             for language in pages.LANGUAGES}
    for language, names in trees.items():
        for other, other_names in trees.items():
            for name in sorted(other_names - names):
                logger.error(f"docs/{language}/{name} is missing: every page needs its twin in each language",
                             location=f"docs/{other}/{name}:1", type="twins")


def setup(app):
    app.connect("builder-inited", check_twins)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
