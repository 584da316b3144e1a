"""No page loads FontAwesome's script: 1.5 MB (about a third of it gzipped) that every page fetched.

The theme already draws its icons without it: its stylesheet carries FontAwesome's CSS and web fonts
(`.fa-solid.fa-bars::before` and so on), and the script only swaps each `<i>` for an inline SVG.
The `<script>` tag sits in a macro of the theme's static/webpack-macros.html, which no option turns
off. So this extension writes a copy of that file without the tag, next to the build's doctrees,
and puts it first on the template path. If the theme's file no longer holds exactly one such tag,
the build stops and says so (a new theme version must be looked at, not silently patched).
"""

from __future__ import annotations

import re
from pathlib import Path

import pydata_sphinx_theme
from sphinx.application import Sphinx
from sphinx.errors import ConfigError

MACROS = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static" / "webpack-macros.html"
SCRIPT_TAG = re.compile(r"^[ \t]*<script defer src=\"\{\{ pathto\('_static/scripts/fontawesome\.js', 1\) \}\}[^\n]*</script>\n",
                        re.MULTILINE)


def macros_without_fontawesome(original: str) -> str:
    found = SCRIPT_TAG.findall(original)
    if len(found) != 1:
        raise ConfigError(f"page_weight: expected one fontawesome.js <script> tag in {MACROS}, found {len(found)}; "
                          "the theme changed: see conf/book_extensions/page_weight.py")
    return SCRIPT_TAG.sub("", original)


def shadow_theme_macros(app: Sphinx, config) -> None:
    # Per language tree (build/<lang>/templates): zh and en build side by side and never share it.
    templates = Path(app.doctreedir).parent / "templates"
    target = templates / "static" / "webpack-macros.html"
    wanted = macros_without_fontawesome(MACROS.read_text(encoding="utf-8"))
    if not target.is_file() or target.read_text(encoding="utf-8") != wanted:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.partial")
        partial.write_text(wanted, encoding="utf-8")
        partial.replace(target)
    config.templates_path = [str(templates), *config.templates_path]


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", shadow_theme_macros)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
