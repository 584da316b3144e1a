"""The themes' own interface words in the page's language.

- conf/locales/<language>/LC_MESSAGES/sphinx.po: words the themes translate through Sphinx's catalog
  (conf.py's ``locale_dirs`` comes before the themes' catalogs).
- <domain>.po beside it, for a theme's own domain (booktheme): compiled and registered in setup(),
  which conf.py runs before the theme's, so that ours is consulted first.
- ``HARD_CODED``: words the themes' templates hard-code (aria labels, tooltips), replaced in the
  written pages on ``build-finished``; a copied template would pin the theme's layout for four words.

Canary: ``theme-hard-coded-strings`` in upstream/theme_internals.py fails when a theme no longer
hard-codes one of them. Tests: tests/test_fixture_projects.py (alone), tests/test_upstream.py.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.util.i18n import CatalogInfo

from book_extensions import ENV_VERSION

LOCALES = Path(__file__).resolve().parents[1] / "locales"
HARD_CODED = {
    "zh_CN": {
        'aria-label="Main"': 'aria-label="全书导航"',
        'aria-label="Page"': 'aria-label="本页目录"',
        'title="Toggle primary sidebar"': 'title="显示或隐藏全书导航"',
        'title="Toggle secondary sidebar"': 'title="显示或隐藏本页目录"',
    },
}


def register_catalogs(app) -> None:
    for po in sorted((LOCALES / app.config.language / "LC_MESSAGES").glob("*.po")):
        if po.stem == "sphinx":
            continue  # compiled and loaded by Sphinx itself, from locale_dirs
        catalog = CatalogInfo(str(po.parent), po.stem, "utf-8")
        if catalog.is_outdated():
            catalog.write_mo(app.config.language)
        app.add_message_catalog(po.stem, str(LOCALES))


def replace_hard_coded(app, exception) -> None:
    replacements = HARD_CODED.get(app.config.language)
    if exception or not replacements or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        html = original = page.read_text(encoding="utf-8")
        for english, translated in replacements.items():
            html = html.replace(english, translated)
        if html != original:
            page.write_text(html, encoding="utf-8")


def setup(app):
    from book_extensions import pages

    register_catalogs(app)
    pages.every_page_depends_on(app, *(LOCALES / app.config.language / "LC_MESSAGES").glob("*.po"))
    app.connect("build-finished", replace_hard_coded)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
