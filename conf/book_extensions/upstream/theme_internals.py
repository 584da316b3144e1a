"""Canaries of the workarounds that rely on the themes' templates, scripts and icon bundle."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import book_settings
from book_extensions.upstream.registry import package_file, workaround


# --- chrome.py replaces English words the themes hard-code in their templates.


def theme_templates() -> dict[str, str]:
    return {
        f"{package}/{path.relative_to(package_file(package))}": path.read_text(encoding="utf-8")
        for package in ("pydata_sphinx_theme", "sphinx_book_theme")
        for path in sorted(package_file(package, "theme").rglob("*.html"))
    }


@workaround(
    "theme-hard-coded-strings",
    "conf/book_extensions/chrome.py",
    "pydata-sphinx-theme sphinx-book-theme",
    "the themes' templates still hard-code each English string chrome.HARD_CODED replaces in the written pages",
)
def _hard_coded_strings_still_in_themes(upstream=None) -> list[str]:
    """upstream: {template path: text} of the installed themes."""
    from book_extensions.chrome import HARD_CODED

    templates = theme_templates() if upstream is None else upstream
    return [
        f"no template of the installed themes holds {english!r} any more, so the {language} pages "
        f"show the theme's new wording untranslated: find it and update HARD_CODED"
        for language, replacements in HARD_CODED.items()
        for english in replacements
        if not any(english in text for text in templates.values())
    ]


# --- icon_masks.py draws the theme's icons as CSS masks, from its fontawesome.js and stylesheet.

THEME = ("pydata_sphinx_theme", "theme", "pydata_sphinx_theme")


def theme_texts() -> dict[str, str]:
    from book_extensions.icon_masks import FONTAWESOME_JS, THEME_STATIC, THEME_STYLESHEET

    return {
        "bundle": FONTAWESOME_JS.read_text(encoding="utf-8"),
        "stylesheet": THEME_STYLESHEET.read_text(encoding="utf-8"),
        "theme_script": theme_script_source(THEME_STATIC / "scripts" / "pydata-sphinx-theme.js.map"),
    }


def theme_script_source(source_map: Path) -> str:
    """pydata-sphinx-theme.js before minifying, from the source map the theme ships ("" if it has none)."""
    try:
        found = json.loads(source_map.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    return "".join(
        text or ""
        for name, text in zip(found.get("sources", []), found.get("sourcesContent", []))
        if name.endswith("/pydata-sphinx-theme.js")
    )


@workaround(
    "icon-masks",
    "conf/book_extensions/icon_masks.py",
    "pydata-sphinx-theme",
    "pydata-sphinx-theme's fontawesome.js holds each style's icons as `var b={name:[w,h,[aliases],unicode,path]}` "
    'then `p("fas",b)`; its stylesheet draws icons from `--pst-icon-…` variables in rules set in '
    '`var(--fa-font-…)`, and gives each icon class its glyph in a rule of its own, `.fa-NAME{--fa:"…"}`',
)
def _icons_as_masks(upstream=None) -> list[str]:
    """upstream: theme_texts(), of which this reads the bundle and the stylesheet."""
    from sphinx.errors import ConfigError

    from book_extensions.icon_masks import icon_paths, stylesheet_icons_css, stylesheet_without_icon_glyphs

    upstream = theme_texts() if upstream is None else upstream
    try:
        stylesheet_icons_css(upstream["stylesheet"], icon_paths(upstream["bundle"]))
        stylesheet_without_icon_glyphs(upstream["stylesheet"])
    except ConfigError as error:
        return [f"{error}: the build now stops; look at how the theme draws its icons now"]
    return []


# --- conf/_templates holds copies of pydata-sphinx-theme's templates with a few edits.

JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)
# (the theme's template, its block or None for the whole file, our copy, [(the theme's text, ours)])
TEMPLATE_COPIES = [
    (
        "components/search-button-field.html",
        None,
        "search-button-field.html",
        [(" aria-label=\"{{ _('Search') }}\"", "")],
    ),
    (
        "layout.html",
        "css",
        "layout.html",
        [
            (
                '    document.documentElement.dataset.theme = localStorage.getItem("theme") || "{{ default_mode }}";\n',
                '    document.documentElement.dataset.theme = ["light", "dark"].includes(document.documentElement.dataset.mode)'
                ' ? document.documentElement.dataset.mode : matchMedia("(prefers-color-scheme: dark)").matches ? "dark"'
                ' : "light";\n',
            ),
            ("  {{ _webpack.head_js_preload() }}\n", ""),
        ],
    ),
    (
        "layout.html",
        "extrahead",
        "layout.html",
        [
            (
                """  {% if pagename == 'search' %}
    {# Search tools are already loaded on search page. Don't load them twice. #}
  {% else %}
    {# Load Sphinx's built-in search tools so that our custom inline search
       experience can work on any page. #}
    <script src="{{ pathto('_static/searchtools.js', 1) | e }}"></script>
    <script src="{{ pathto('_static/language_data.js', 1) | e }}"></script>
    <script src="{{ pathto('searchindex.js', 1) | e }}"></script>
  {% endif %}
""",
                "",
            )
        ],
    ),
]
# The lines of setTheme(mode) in pydata-sphinx-theme.js that the css block's data-theme line repeats.
SET_THEME = (
    'if (mode !== "light" && mode !== "dark" && mode !== "auto") {',
    'var colorScheme = prefersDark.matches ? "dark" : "light";',
    'var theme = mode == "auto" ? colorScheme : mode;',
    "document.documentElement.dataset.theme = theme;",
)


def _block(text: str, block: str | None) -> str | None:
    if block is None:
        return text
    found = re.search(rf"\{{%-? block {block} %\}}(.*?)\{{%-? endblock {block} %\}}", text, re.DOTALL)
    return found and found.group(1)


@workaround(
    "theme-template-copies",
    "conf/_templates",
    "pydata-sphinx-theme",
    "pydata-sphinx-theme's templates that conf/_templates copies (search-button-field.html, layout.html's css and "
    "extrahead blocks) are still, but for the edits of theme_internals.TEMPLATE_COPIES, what our copies were made "
    "from, and setTheme(mode) in pydata-sphinx-theme.js resolves the colour theme as our css block does",
)
def _template_copies_match(upstream=None) -> list[str]:
    """upstream: {template path under the theme: text}; None reads the installed theme's."""
    problems = []
    for template, block, copy, edits in TEMPLATE_COPIES:
        theirs_path = package_file(*THEME[:1]).joinpath(*THEME[1:], template)
        theirs = (upstream or {}).get(template) or (
            theirs_path.read_text(encoding="utf-8") if theirs_path.is_file() else ""
        )
        where = f"{template}" + (f"'s block {block}" if block else "")
        ours = _block((book_settings.CONF / "_templates" / copy).read_text(encoding="utf-8"), block)
        if (expected := _block(theirs, block)) is None or not theirs:
            problems.append(f"the theme has no {where} any more, so conf/_templates/{copy} replaces nothing")
            continue
        for old, new in edits:
            if old not in expected:
                problems.append(
                    f"the theme's {where} no longer has {old.strip()!r}: if that was what our copy "
                    f"fixes, remove the edit, else copy it again with the edit"
                )
            expected = expected.replace(old, new)
        expected, ours = (JINJA_COMMENT.sub("", text).strip() for text in (expected, ours or ""))
        if expected != ours:
            diff = "\n".join(
                difflib.unified_diff(ours.splitlines(), expected.splitlines(), "ours", "theirs, edited", lineterm="")
            )
            problems.append(
                f"the theme's {where} changed since conf/_templates/{copy} was made from it: copy it "
                f"again with the edits of theme_internals.TEMPLATE_COPIES\n{diff}"
            )
    script = (upstream or {}).get("theme_script") or theme_texts()["theme_script"]
    if missing := [line for line in SET_THEME if line not in script]:
        problems.append(
            f"setTheme() in pydata-sphinx-theme.js (from its source map) no longer has {missing}: it may "
            "pick the colour theme otherwise than the css block's head script, and the browser then "
            "restyles the whole page once it runs"
        )
    return problems
