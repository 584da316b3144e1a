"""What search engines and link previews read of a page, from one base URL.

- ``html_baseurl`` (conf.py) names the site's root; each language is served from its folder below
  it, so here it becomes the language's folder (<root>/zh/), for Sphinx's own
  ``<link rel="canonical">`` (html_baseurl + page) and sphinxext-opengraph's ``og:url`` alike.
- ``<meta name="description">`` and ``og:description``: the page's promise, the first paragraph
  after its title, as the page shows it (inline code as its text, glued values as glued, no claim
  marks), shortened for a results page. A page without one gets none, and the site tests fail on it
  (not the build: the build tests' scratch pages are titles only). sphinxext-opengraph's own
  description runs on past the first paragraph and cuts inside a word, so this one is handed to it
  as the page's ``og:description`` field, with the locales (and ``og:type`` website for the root).
- ``<link rel="alternate" hreflang>``: the page in each language, absolute, and x-default: the
  Chinese page, the book's first language, which is also where the root chooser sends a reader
  whose browser asks for neither language. (x-default pointing at the chooser would send a search
  for a chapter to the landing page.)
- Pages Sphinx generates (search, index of terms) have no text of their own: noindex.
- ``<build>/<lang>/sitemap.json``: this language's pages with their alternates, outside the
  published folder; conf/assemble_site.py writes both languages' into sitemap.xml. Every page
  is listed, not only those an incremental build rewrote (sphinx-sitemap lists only those).

Tests: tests/test_fixture_projects.py (alone), tests/test_site.py (every page).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import urljoin

from docutils import nodes
from sphinx.errors import ConfigError

import book_settings
from book_extensions import ENV_VERSION
from book_extensions.languages import STRINGS, tree_and_other
from book_extensions.twins import url_in_tree

PROMISE = "book-promise"  # marks the promise's paragraph in the doctree (not written to the HTML)
OPEN_GRAPH_LOCALE = {"zh_CN": "zh_CN", "en": "en_US"}
# What a results page shows of a description: Google cuts English after about 155-160 characters
# and Chinese after about 75-80 (each character is about twice as wide).
DESCRIPTION_LENGTH = {"zh_CN": 80, "en": 160}
# A longer promise is cut where it reads best and still fills at least half of that (a short
# description says less than it could, and search engines replace short ones with excerpts of their
# own): after its last whole sentence that fits, else before a clause mark (, ; : and ，、；：), else
# before a space, never inside an English word; a cut sentence ends in "…".
CUTS = [
    (re.compile(r"(?<=[.!?])(?=\s|$)|(?<=[。！？])"), ""),
    (re.compile(r"(?=[,;:]\s)|(?=[，、；：])"), "…"),
    (re.compile(r"(?=\s)"), "…"),
]


def place_language(app, config):
    """conf.py's html_baseurl is the site's root; Sphinx writes the canonical links from this language's folder."""
    if not config.html_baseurl:
        raise ConfigError(
            "html_baseurl must name the site's root (conf.py: book_settings.SITE_URL): "
            "canonical links, hreflang alternates and the sitemap are absolute URLs"
        )
    tree = tree_and_other(config.language)[0]
    config.html_baseurl = config.ogp_site_url = urljoin(config.html_baseurl.rstrip("/") + "/", f"{tree}/")


def mark_promise(app, doctree):
    """Mark the promise, the first paragraph under the page's title, now: before badges.py puts the
    execution badge between them (also on doctree-read, at priority 500). It is read when the page is
    written, after glued values were pasted into it."""
    title_section = doctree.next_node(nodes.section)
    promise = title_section and next(
        (child for child in title_section.children if isinstance(child, nodes.paragraph)), None
    )
    if promise is not None:
        promise[PROMISE] = True


def shortened(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    for cut, ending in CUTS:
        fitting = [place.start() for place in cut.finditer(text) if place.start() + len(ending) <= limit]
        if fitting and fitting[-1] >= limit // 2:
            return text[: fitting[-1]].rstrip() + ending
    return text[: limit - 1] + "…"  # no sentence end, clause mark or space in the second half of the limit


def description(app, doctree) -> str | None:
    promise = next(doctree.findall(lambda node: isinstance(node, nodes.paragraph) and node.get(PROMISE)), None)
    return promise and shortened(" ".join(promise.astext().split()), DESCRIPTION_LENGTH[app.config.language])


def alternates(app, pagename: str) -> dict[str, str]:
    """{hreflang: absolute URL} of the page in each language, then x-default (module docstring)."""
    here = urljoin(app.config.html_baseurl, app.builder.get_target_uri(pagename))
    urls = {
        STRINGS[code]["hreflang"]: urljoin(here, url_in_tree(pagename, tree))
        for tree, code in book_settings.LANGUAGES.items()
    }
    return {**urls, "x-default": next(iter(urls.values()))}  # LANGUAGES is in the book's order: Chinese first


def head_tags(app, pagename, templatename, context, doctree):
    """The description and alternates; the page's Open Graph fields, which sphinxext-opengraph writes
    after this (it adds every ``og:*`` field of the page's metadata to its own tags)."""
    if doctree is None:  # search, genindex
        context["metatags"] = context.get("metatags", "") + '\n<meta name="robots" content="noindex">'
        return
    said = description(app, doctree)
    other_code = next(code for code in OPEN_GRAPH_LOCALE if code != app.config.language)
    # sphinxext-opengraph escapes only the quotes of a field's value: the rest is escaped here.
    fields = {
        "og:description": said and html.escape(said),
        "og:locale": OPEN_GRAPH_LOCALE[app.config.language],
        "og:locale:alternate": OPEN_GRAPH_LOCALE[other_code],
        "og:type": "website" if pagename == app.config.root_doc else app.config.ogp_type,
    }
    context["meta"] = {**(context.get("meta") or {}), **{name: value for name, value in fields.items() if value}}
    tags = [f'<meta name="description" content="{html.escape(said)}">'] if said else []
    tags += [
        f'<link rel="alternate" hreflang="{hreflang}" href="{html.escape(url)}">'
        for hreflang, url in alternates(app, pagename).items()
    ]
    context["metatags"] = context.get("metatags", "") + "".join(f"\n{tag}" for tag in tags)


def list_pages(app, exception):
    """All pages of this build, not only those written now (parallel writers would not report back)."""
    if exception or app.builder.format != "html":
        return
    listed = [
        {
            "url": urljoin(app.config.html_baseurl, app.builder.get_target_uri(docname)),
            "alternates": alternates(app, docname),
        }
        for docname in sorted(app.env.found_docs)
    ]
    (Path(app.outdir).parent / "sitemap.json").write_text(
        json.dumps(listed, indent=1, ensure_ascii=False), encoding="utf-8"
    )


def setup(app):
    app.connect("config-inited", place_language)
    app.connect("doctree-read", mark_promise, priority=400)  # badges.py's runs at 500
    app.connect("html-page-context", head_tags, priority=400)  # before sphinxext-opengraph's, at 500
    app.connect("build-finished", list_pages)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
