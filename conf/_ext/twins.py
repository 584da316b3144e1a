"""Every page exists in both languages, and each page links to its twin.

- A page without its twin fails the build, by name (otherwise it surfaces only as a toctree
  warning about a "nonexisting document" in the other language's index).
- The header's language switch leads to the same page in the other language, and the page
  head names its twin (`<link rel="alternate" hreflang>`). The trees are mirrored, so the
  twin of zh/<page>.html is en/<page>.html; a page without one (which the check above
  forbids) links to the other landing page.
"""

from __future__ import annotations

from sphinx.util import logging

import pages
from languages import STRINGS

logger = logging.getLogger(__name__)


def check_twins(app):
    trees = {language: {p.relative_to(pages.DOCS / language) for p in (pages.DOCS / language).rglob("*.md")}
             for language in pages.LANGUAGES}
    for language, names in trees.items():
        for other, other_names in trees.items():
            for name in sorted(other_names - names):
                logger.error(f"docs/{language}/{name} is missing: every page needs its twin in each language",
                             location=f"docs/{other}/{name}:1", type="twins")


GENERATED_PAGES = {"genindex", "search"}  # made by Sphinx in every language


def link_twin(app, pagename, templatename, context, doctree):
    here = STRINGS[app.config.language]
    other = next(strings for code, strings in STRINGS.items() if code != app.config.language)
    has_twin = pagename in GENERATED_PAGES or (pages.DOCS / other["tree"] / f"{pagename}.md").is_file()
    up = "../" * (pagename.count("/") + 1)
    url = f"{up}{other['tree']}/{pagename if has_twin else 'index'}.html"
    context["language_switch"] = {"url": url, "label": other["switch-label"], "title": other["switch-title"],
                                  "hreflang": other["hreflang"]}
    context["metatags"] = context.get("metatags", "") + (
        f'\n<link rel="alternate" hreflang="{other["hreflang"]}" href="{url}">'
        f'\n<link rel="alternate" hreflang="{here["hreflang"]}" href="{up}{here["tree"]}/{pagename}.html">')


def setup(app):
    app.connect("builder-inited", check_twins)
    app.connect("html-page-context", link_twin)
    return {"parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": pages.extension_version(__file__)}
