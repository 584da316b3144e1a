"""The theme's icons as CSS masks, without FontAwesome's script, fonts or per-icon glyph rules.

- Writes _static/book-icons.css: each icon the pages show, and each `var(--book-icon-NAME)` of
  conf/_static/book.css, as a mask painted in the text colour, its SVG path read from the theme's own
  fontawesome.js; the icons the theme's stylesheet draws with the icon font get the same.
- Serves the theme's stylesheet without FontAwesome's glyph rules, as a file of the same name last
  on html_static_path (Sphinx copies it over the theme's).
conf/_templates/layout.html keeps the theme from loading fontawesome.js. Where the theme's files no
longer look as this expects, the build stops and names the file (tests/test_upstream.py fails first).
Tests: tests/test_fixture_projects.py (alone), tests/test_site.py (every page).
Why: docs/decisions/page-weight.md.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote

import pydata_sphinx_theme
from sphinx.application import Sphinx
from sphinx.errors import ConfigError, ExtensionError

from book_extensions import ENV_VERSION

THEME_STATIC = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"
FONTAWESOME_JS = THEME_STATIC / "scripts" / "fontawesome.js"
BOOK_CSS = Path(__file__).parents[1] / "_static" / "book.css"
ICONS_CSS = "book-icons.css"

# In fontawesome.js each style's icons are one object literal, `var b={name:[width,height,[aliases],
# "unicode","path"],…}`, then registered under its class names: `p("fas",b),p("fa-solid",b)`.
PACK = re.compile(
    r'var b=\{(.*?)\};!function.{0,300}?\(function\(\)\{p\("(fa[a-z]*)",b\),p\("(fa-[a-z]+)",b\)\}\)', re.DOTALL
)
ICON = re.compile(r'(?:"([a-z0-9-]+)"|([a-z][a-z0-9]*)|(\d+)):\[(\d+),(\d+),\[([^\]]*)\],"([0-9a-f]*)","([^"]*)"\]')
THEME_STYLESHEET = THEME_STATIC / "styles" / "pydata-sphinx-theme.css"
# FontAwesome's per-icon rules in it: `.fa-bars,.fa-navicon{--fa:"\f0c9"}` (the glyph the icon font would draw).
ICON_GLYPH_RULE = re.compile(r'(?<=\})\.fa-[a-z0-9-]+(?:,\.fa-[a-z0-9-]+)*\{--fa:"[^"]*"\}')
MIN_ICON_GLYPH_RULES = 1000  # FontAwesome Free has about two thousand; far fewer means the format changed
# In the theme's stylesheet: `--pst-icon-bell:"\uf0f3"` (the glyph's code point, escaped or not) or
# `--pst-icon-admonition-note:var(--pst-icon-info-circle)`; rules that draw a glyph in the icon font;
# rules that pick the glyph (`content:var(--pst-icon-…)`). Innermost rules only: the theme puts no
# icon rule in an @media block.
PST_ICON = re.compile(r'--pst-icon-([a-z-]+):(?:"\\?([^"]+)"|var\(--pst-icon-([a-z-]+)\))')
CSS_RULE = re.compile(r"([^{}@;]+)\{([^{}]*)\}")
ICON_FONT = re.compile(r"font:var\(--fa-font-(?:solid|regular|brands)\)")
ICON_CONTENT = re.compile(r"content:var\(--pst-icon-([a-z-]+)\)")
STYLE_CLASSES = {"fa-solid", "fas", "fa-regular", "far", "fa-brands", "fab"}
# Classes on an icon element that name no icon: styles, sizes, the theme's own markers.
NOT_ICON_NAMES = STYLE_CLASSES | {"fa-lg", "fa-fw", "fa-xs", "fa-sm", "fa-xl", "fa-2x", "fa-3x"}
ICON_ELEMENT = re.compile(r'class="([^"]*\b(?:fa-solid|fas|fa-regular|far|fa-brands|fab)\b[^"]*)"')
BOOK_CSS_ICON = re.compile(r"var\(--book-icon-([a-z0-9-]+)\)")  # always a solid icon
ATTRIBUTION = (
    "/* Icons: Font Awesome Free by @fontawesome, https://fontawesome.com, CC BY 4.0\n"
    "   (https://fontawesome.com/license/free); drawn from the theme's fontawesome.js by\n"
    "   conf/book_extensions/icon_masks.py. */\n"
)


def stylesheet_without_icon_glyphs(original: str) -> str:
    found = len(ICON_GLYPH_RULE.findall(original))
    stripped = ICON_GLYPH_RULE.sub("", original)
    other_forms = stripped.count('--fa:"')  # a glyph rule this pattern would cut in half
    if found < MIN_ICON_GLYPH_RULES or other_forms:
        raise ConfigError(
            f"icon_masks: expected at least {MIN_ICON_GLYPH_RULES} FontAwesome rules of the form "
            f'.fa-NAME{{--fa:"…"}} (each a whole rule) in {THEME_STYLESHEET}, found {found} and '
            f"{other_forms} of another form; the theme changed: see conf/book_extensions/icon_masks.py"
        )
    return stripped


def icon_paths(bundle: str) -> dict[tuple[str, str], tuple[int, int, str]]:
    """{(style class, icon name or alias): (width, height, SVG path)} for every style in the bundle,
    both class spellings (fas and fa-solid) as keys."""
    icons = {}
    for body, short, long in PACK.findall(bundle):
        for quoted, bare, number, width, height, aliases, codepoint, path in ICON.findall(body):
            drawing = (int(width), int(height), path)
            # Also found by its code point ("U+f0f3"), which is how the theme's stylesheet names it.
            for name in (quoted or bare or number, *re.findall(r'"([a-z0-9-]+)"', aliases), f"U+{codepoint}"):
                icons[(short, name)] = icons[(long, name)] = drawing
    if not {"fas", "far", "fab"} <= {style for style, _ in icons}:
        raise ConfigError(
            f"icon_masks: found no solid, regular and brands icons in {FONTAWESOME_JS}; "
            "the theme's FontAwesome bundle changed: see conf/book_extensions/icon_masks.py"
        )
    return icons


def icons_shown(html_pages: list[Path]) -> set[tuple[str, str]]:
    """(style class, icon name) of every icon element in the pages: ("fab", "github") for
    `<i class="fab fa-github">`."""
    shown = set()
    for page in html_pages:
        for classes in ICON_ELEMENT.findall(page.read_text(encoding="utf-8")):
            names = classes.split()
            style = next(name for name in names if name in STYLE_CLASSES)
            shown |= {
                (style, name.removeprefix("fa-"))
                for name in names
                if name.startswith("fa-") and name not in NOT_ICON_NAMES
            }
    return shown


def svg_url(width: int, height: int, path: str) -> str:
    svg = f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height}'><path d='{path}'/></svg>"
    encoded = quote(svg, safe=" /=:,.-'")  # the quotes inside the SVG are ' and stay as they are
    return f'url("data:image/svg+xml,{encoded}")'


def icons_css(shown: set[tuple[str, str]], book_css_names: set[str], icons: dict) -> str:
    """The masks for the icon elements shown, and a `--book-icon-NAME` property for each solid icon
    book.css paints itself."""
    wanted = shown | {("fas", name) for name in book_css_names}
    missing = sorted(f"{style} fa-{name}" for style, name in wanted if (style, name) not in icons)
    if missing:
        raise ExtensionError(f"icon_masks: the pages show icons the theme's fontawesome.js does not hold: {missing}")
    rules = [
        ATTRIBUTION,
        # The element keeps the theme's box (FontAwesome's CSS: 1.25em wide, centred) and its
        # show/hide rules; only the glyph changes: an empty ::before painted through the mask.
        # An inline element's font is loaded for its line metrics even when it shows no text.
        ":is(.fa-solid,.fas,.fa-regular,.far,.fa-brands,.fab){font-family:inherit}",
        ':is(.fa-solid,.fas,.fa-regular,.far,.fa-brands,.fab)::before{content:"";display:inline-block;'
        "width:1em;height:1em;vertical-align:-0.125em;background-color:currentColor;"
        "-webkit-mask:var(--book-icon) center/contain no-repeat;mask:var(--book-icon) center/contain no-repeat}",
    ]
    rules += [f".{style}.fa-{name}{{--book-icon:{svg_url(*icons[(style, name)])}}}" for style, name in sorted(shown)]
    rules += [f":root{{--book-icon-{name}:{svg_url(*icons[('fas', name)])}}}" for name in sorted(book_css_names)]
    return "\n".join(rules) + "\n"


def code_point(value: str) -> str:
    """'f0f3' (as the stylesheet escapes it) or the glyph itself, as "U+f0f3"."""
    return f"U+{value.lower()}" if len(value) > 1 else f"U+{ord(value):x}"


def stylesheet_icons_css(stylesheet: str, icons: dict) -> str:
    """Masks for the icons the theme's stylesheet draws in the icon font, rule by rule, same selectors."""
    masks = []
    for name, glyph, alias in PST_ICON.findall(stylesheet):
        if alias:
            masks.append(f"--book-mask-{name}:var(--book-mask-{alias})")
        elif drawing := next(
            (
                icons[(style, code_point(glyph))]
                for style in ("fas", "fab", "far")
                if (style, code_point(glyph)) in icons
            ),
            None,
        ):
            masks.append(f"--book-mask-{name}:{svg_url(*drawing)}")
    rules = CSS_RULE.findall(stylesheet)
    boxes = [selector.strip() for selector, body in rules if ICON_FONT.search(body)]
    glyphs = [(selector.strip(), name) for selector, body in rules for name in ICON_CONTENT.findall(body)]
    if not (masks and boxes and glyphs):
        raise ConfigError(
            f"icon_masks: found no icon variables, icon-font rules or icon glyph rules in "
            f"{THEME_STYLESHEET}; the theme changed: see conf/book_extensions/icon_masks.py"
        )
    css = [":root{" + ";".join(masks) + "}"]
    css += [
        f"{selector}{{font-family:inherit;display:inline-block;width:1em;height:1em;vertical-align:-0.125em;"
        "-webkit-mask-position:center;mask-position:center;-webkit-mask-size:contain;mask-size:contain;"
        "-webkit-mask-repeat:no-repeat;mask-repeat:no-repeat}"
        for selector in boxes
    ]
    css += [
        f'{selector}{{content:"";background-color:currentColor;'
        f"-webkit-mask-image:var(--book-mask-{name});mask-image:var(--book-mask-{name})}}"
        for selector, name in glyphs
    ]
    return "\n".join(css) + "\n"


def write_if_changed(target: Path, wanted: str) -> None:
    """Whole or not at all (a build killed half-way leaves no half file), and untouched when unchanged."""
    if not target.is_file() or target.read_text(encoding="utf-8") != wanted:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.partial")
        partial.write_text(wanted, encoding="utf-8")
        partial.replace(target)


def serve_stylesheet_without_glyphs(app: Sphinx, config) -> None:
    # Per language tree (build/<lang>/static-overrides): zh and en build side by side and never share it.
    static = Path(app.doctreedir).parent / "static-overrides"
    write_if_changed(
        static / "styles" / THEME_STYLESHEET.name,
        stylesheet_without_icon_glyphs(THEME_STYLESHEET.read_text(encoding="utf-8")),
    )
    config.html_static_path = [*config.html_static_path, str(static)]


def write_icons_css(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    # Every page in the output, written by this build or an earlier one: all of them link this file.
    pages = [page for page in outdir.rglob("*.html") if "_static" not in page.parts]
    book_css_names = set(BOOK_CSS_ICON.findall(BOOK_CSS.read_text(encoding="utf-8")))
    icons = icon_paths(FONTAWESOME_JS.read_text(encoding="utf-8"))
    css = icons_css(icons_shown(pages), book_css_names, icons) + stylesheet_icons_css(
        THEME_STYLESHEET.read_text(encoding="utf-8"), icons
    )
    (outdir / "_static" / ICONS_CSS).write_text(css, encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", serve_stylesheet_without_glyphs)
    app.add_css_file(ICONS_CSS)
    app.connect("build-finished", write_icons_css)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
