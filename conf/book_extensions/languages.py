"""The book's own interface words, and the settings that follow the language.

Words: conf/locales/<language>/LC_MESSAGES/book.po, domain ``book``, msgid the English text (what
the en build shows), compiled and registered by ``chrome``. Extensions import ``_`` from here
(sphinx.locale's ``get_translation("book")``) and call ``_("About {minutes} min …").format(…)`` with
a literal msgid; a plural goes through ``get_translator("book").ngettext``; ``in_language`` gives a
msgid in the other build's language (the language switch). tests/test_interface_words.py: every
msgid the code passes is in book.po, translated, and no other.

Settings: title, author, copyright, the theme's edit path and search placeholder. Sphinx learns the
language from ``-D language=…`` only after conf.py ran, so they are set on ``config-inited``; a
language the book lacks stops the build. Tests: tests/test_site.py (the tab title).
"""

from __future__ import annotations

from functools import cache

from babel.messages.pofile import read_po
from sphinx.locale import get_translation

import book_settings
from book_extensions import ENV_VERSION
from book_extensions.chrome import LOCALES

_ = get_translation("book")


@cache
def _catalog(language: str) -> dict[str, str]:
    """book.po's msgstr by msgid; none for the source language. Read from the .po, not the .mo that
    the other language's build compiles while this one runs."""
    po = LOCALES / language / "LC_MESSAGES" / "book.po"
    if not po.is_file():
        return {}
    with po.open("rb") as file:
        return {message.id: message.string for message in read_po(file) if message.id}


def in_language(message: str, language: str) -> str:
    """The msgid `message` as the build in `language` shows it."""
    return _catalog(language).get(message) or message


def tree_and_other(sphinx_language: str) -> tuple[str, str]:
    """("zh", "en") for zh_CN: the page's language tree under docs/ and the other one."""
    tree = book_settings.TREE_OF_SPHINX_LANGUAGE[sphinx_language]
    return tree, next(other for other in book_settings.LANGUAGES if other != tree)


def hreflang(sphinx_language: str) -> str:
    """zh-CN for zh_CN: the BCP 47 tag of a Sphinx language code."""
    return sphinx_language.replace("_", "-")


def set_titles(app, config):
    if config.language not in book_settings.TREE_OF_SPHINX_LANGUAGE:
        raise ValueError(f"language {config.language!r} is not one of the book's: "
                         f"{', '.join(book_settings.TREE_OF_SPHINX_LANGUAGE)}")
    config.project = config.html_title = _("Autograd, Measured")
    config.author = _("The Autograd, Measured authors")
    config.copyright = _("2026, The Autograd, Measured authors · code MIT, text CC BY 4.0")
    # "Edit this page" opens the page's own tree: docs/zh/… or docs/en/…
    config.html_theme_options["path_to_docs"] = f"docs/{tree_and_other(config.language)[0]}"
    config.html_theme_options["search_bar_text"] = _("Search the book…")


def setup(app):
    app.setup_extension("book_extensions.chrome")  # the catalogs
    app.connect("config-inited", set_titles)
    return {"parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": ENV_VERSION}
