"""Every page exists in both languages, and links to its twin.

A page without its twin fails the build, by name (else it surfaces only as a toctree warning in the
other language). The header's language switch (_templates/language-switch.html) leads to the same
page in the other tree, the trees being mirrored (zh/<page>.html, en/<page>.html).

Sphinx: ``builder-inited`` checks the twins; ``html-page-context`` sets ``language_switch``.
Tests: tests/test_build_errors.py (a twinless page), tests/test_pages.py, tests/browser/test_browser.py.
"""

from __future__ import annotations

from sphinx.util import logging

from book_extensions import ENV_VERSION, pages
from book_extensions.languages import STRINGS, tree_and_other

logger = logging.getLogger(__name__)


def check_twins(app):
    for missing, twin in pages.missing_twins():
        logger.error(
            f"{pages.relative(missing)} is missing: every page needs its twin in each language",
            location=f"{pages.relative(twin)}:1",
            type="twins",
        )


GENERATED_PAGES = {"genindex", "search"}  # made by Sphinx in every language


def url_in_tree(pagename: str, tree: str, target: str | None = None) -> str:
    """The URL of `target` (by default the same page) in the language tree `tree`, relative to
    `pagename` in either tree: ../en/<page>.html (the site holds the trees side by side)."""
    return f"{'../' * (pagename.count('/') + 1)}{tree}/{target or pagename}.html"


def link_twin(app, pagename, templatename, context, doctree):
    other_tree = tree_and_other(app.config.language)[1]
    other = next(strings for code, strings in STRINGS.items() if code != app.config.language)
    has_twin = pagename in GENERATED_PAGES or (pages.DOCS / other_tree / f"{pagename}.md").is_file()
    context["language_switch"] = {
        "url": url_in_tree(pagename, other_tree, None if has_twin else "index"),
        "label": other["switch-label"],
        "title": other["switch-title"],
        "hreflang": other["hreflang"],
    }


def setup(app):
    app.connect("builder-inited", check_twins)
    app.connect("html-page-context", link_twin)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
