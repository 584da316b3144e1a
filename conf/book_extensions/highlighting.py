"""Highlighted Python holds an element only where its look changes. A name, punctuation, operator or
whitespace token that both of the theme's Pygments styles (``pygments_light_style`` and
``pygments_dark_style`` in ``html_theme_options``) draw exactly as plain text is lexed as plain
text, which Pygments writes without a ``<span>``, so a phone lays out, and axe-core and Lighthouse
check, far fewer elements. book.css draws a Python block's text that pygments.css gives no colour
(that text, and e.g. a doctest's prompt and output) in the style's text colour, not the theme's for
``<pre>``.

Sphinx: ``add_lexer`` (a table of the whole process) for the code cells (``ipython3``), Python blocks
and doctests (``pycon``); the claims' popovers highlight with the same lexer (claims.py). Tests:
tests/test_fixture_projects.py (alone), tests/test_site.py, tests/browser/test_browser.py.
"""

from __future__ import annotations

from pygments.filter import Filter
from pygments.lexers import find_lexer_class_by_name
from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Name, Operator, Punctuation, Text

from book_extensions import ENV_VERSION

# The languages lexed this way, with the options Sphinx gives each by default (its own Python lexers
# keep leading and trailing blank lines).
LEXERS = {"ipython3": {}, "python": {"stripnl": False}, "pycon": {"stripnl": False}}
# The token kinds that may be merged; others (Generic, Error, …) never are: CSS and the copy button
# read their classes (a doctest's prompt, `.gp`).
MERGEABLE = (Name, Punctuation, Operator, Text)
# The block languages Sphinx lexes with these lexers (it reads py, py3, python3 and default as python,
# or pycon when the block starts ">>>", pycon3 as pycon; a default block that is not Python, as text),
# as a block's <div class="highlight-…"> names them; book.css's rule lists the same.
BLOCK_LANGUAGES = (*LEXERS, "py", "py3", "python3", "default", "pycon3")


def plain_types(*style_names: str) -> frozenset:
    """The standard token types of the mergeable kinds that every named style draws exactly as it
    draws plain text."""
    styles = [get_style_by_name(name) for name in style_names]
    return frozenset(
        ttype
        for ttype in STANDARD_TYPES
        if ttype is not Text
        and any(ttype in kind for kind in MERGEABLE)
        and all(style.style_for_token(ttype) == style.style_for_token(Text) for style in styles)
    )


class AsPlainText(Filter):
    def __init__(self, types: frozenset, **options):
        super().__init__(**options)
        self.types = types

    def filter(self, lexer, stream):
        for ttype, value in stream:
            yield (Text if ttype in self.types else ttype), value


def register_lexers(app) -> None:
    theme = app.config.html_theme_options
    as_plain = AsPlainText(plain_types(theme["pygments_light_style"], theme["pygments_dark_style"]))
    for alias, defaults in LEXERS.items():
        base = find_lexer_class_by_name(alias)

        def __init__(self, _base=base, _defaults=defaults, **options):
            _base.__init__(self, **{**_defaults, **options})
            self.add_filter(as_plain)

        app.add_lexer(alias, type(base.__name__, (base,), {"__init__": __init__}))


def setup(app):
    app.connect("builder-inited", register_lexers)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
