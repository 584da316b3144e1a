"""The built site shows, cell by cell, what each snippet printed, and in its prose the values the build glued.

These checks read what Sphinx built, not the HTML's text: a line such as `True` is found anywhere
on a page, but only one cell's output is that cell's. Each page's pickled doctree
(<build>/<lang>/doctrees/<page>.doctree) holds its code cells in order, as myst-nb renders them
(a `cell_code` container with a `cell_code_source` and a `cell_code_output`), and its glued values
as `pasted-text` inlines; myst-nb writes the glue data it pasted from, collected from the executed
notebook, beside it (<build>/<lang>/jupyter_execute/<page>.glue.json).
"""

import contextlib
import difflib
import html
import json
import re
from ast import literal_eval
from collections import Counter
from functools import cache
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree

import pytest
from bs4 import BeautifulSoup
from docutils import nodes
from myst_nb.core.variables import format_plain_text
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import find_lexer_class_by_name, get_lexer_by_name
from pygments.token import STANDARD_TYPES, Error, Name, Operator, Punctuation, Text
from pygments.util import ClassNotFound

from book_extensions import pages
from book_extensions.highlighting import BLOCK_LANGUAGES
from book_extensions.icon_masks import FONTAWESOME_JS, THEME_STYLESHEET
from book_extensions.seo import DESCRIPTION_LENGTH
from book_extensions.snippet_cells import rendered_code_cells
from book_extensions.snapshots import printed_lines
from book_settings import DOCS, JUDGE_DISTRIBUTION, JUDGE_SITE_FOLDER, SITE_URL, installed_torch
from built_site import doctree
from snippet_runs import as_shown, expected_snapshot, glued_values, normalise

PAGES = [(language, name, page) for language in pages.LANGUAGES for name, page in pages.book_pages(language).items()]
IDS = [f"{language}/{name}" for language, name, _ in PAGES]
TRACEBACK = "Traceback (most recent call last):"


def glue_data(build: Path, language: str, name: str) -> dict[str, dict[str, str]]:
    """{key: mime bundle} of what the page's execution glued (myst-nb writes no file for none)."""
    path = build / language / "jupyter_execute" / Path(name).with_suffix(".glue.json")
    if not path.is_file():
        return {}
    return {key: output["data"] for key, output in json.loads(path.read_text(encoding="utf-8")).items()}


def rendered_cells(build: Path, language: str, name: str) -> list[nodes.container]:
    return rendered_code_cells(doctree(build, language, name))


def shown_lines(cell: nodes.container, raises: bool) -> list[str]:
    """The text under a rendered cell, normalised: stream outputs, and results that have only a
    text/plain form (a figure has no text), in order; of a traceback, the raised error's line when
    the cell is tagged raises-exception, all of it when not. Only the `cell_code_output` container
    is read: the torch-difference folds are its siblings, not outputs."""
    texts, traceback = [], []
    for output in (child for child in cell.children if child.get("nb_element") == "cell_code_output"):
        for node in output.findall(nodes.Element):
            classes = set(node.get("classes", []))
            if isinstance(node, nodes.literal_block) and classes & {"stream", "stderr"}:
                texts.append(node.astext())
            elif isinstance(node, nodes.literal_block) and "traceback" in classes:
                traceback = node.astext().rstrip().splitlines()
            elif node.get("nb_element") == "mime_bundle" and [m["mime_type"] for m in node.children] == ["text/plain"]:
                texts.append(node.astext())
    if traceback:
        texts.append(traceback[-1] if raises else "\n".join(traceback))
    return lines(normalise("".join(text if text.endswith("\n") else text + "\n" for text in texts)))


def expected_lines(cell: pages.CodeCell) -> list[str]:
    """The snapshot without the `[glue]` lines, which the page shows in its prose. A cell tagged
    raises-exception shows IPython's traceback, not Python's: of that, only the error's line."""
    snapshot = printed_lines(expected_snapshot(cell.snippet).read_text(encoding="utf-8"))
    if cell.raises and TRACEBACK in snapshot:
        snapshot = snapshot[: snapshot.index(TRACEBACK)] + snapshot[-1:]
    return lines("\n".join(snapshot))


def lines(text: str) -> list[str]:
    """Without trailing blank lines: a blank line a snippet prints last does not reach the page."""
    return text.rstrip("\n").splitlines()


@pytest.mark.parametrize(("language", "name", "page"), PAGES, ids=IDS)
def test_each_cell_shows_its_snippets_snapshot(build, language, name, page):
    """Cell i of the page shows the reviewed output of the snippet cell i loads, line for line."""
    cells = rendered_cells(build, language, name)
    loads = [pages.relative((DOCS / language / name).parent / node["cell_metadata"].get("load", "")) for node in cells]
    assert loads == [pages.relative(cell.snippet) for cell in page.code_cells], (
        f"{language}/{name}: the rendered cells load {loads}, the page's cells {[pages.relative(s) for s in page.snippets]}"
    )
    wrong = []
    for cell, node in zip(page.code_cells, cells):
        expected, shown = expected_lines(cell), shown_lines(node, cell.raises)
        if shown != expected:
            snapshot = pages.relative(expected_snapshot(cell.snippet))
            wrong.append(
                f"{language}/{name}, the cell at {cell.where}, shows other lines than {snapshot}:\n"
                + "\n".join(difflib.unified_diff(expected, shown, snapshot, "the page", lineterm=""))
            )
    if wrong:
        pytest.fail("\n\n".join(wrong), pytrace=False)


@pytest.mark.parametrize(("language", "name", "page"), PAGES, ids=IDS)
def test_the_build_glued_what_the_snapshots_recorded(build, language, name, page):
    """The build glued the reviewed values, so that a number in the prose is one a reviewer read:
    the keys of the snapshots' `[glue]` lines, their values (a float to the digits the prose
    shows), except that one glued with varies=True (`~`: a timing, rounding noise) may be any
    number. Figures have no text to compare."""
    data, recorded = glue_data(build, language, name), {}
    for snippet in page.snippets:
        recorded |= glued_values(expected_snapshot(snippet).read_text(encoding="utf-8"))
    assert sorted(data) == sorted(recorded), (
        f"{language}/{name}: the build glued {sorted(data)}, the snapshots record {sorted(recorded)}"
    )
    wrong = []
    for key, bundle in data.items():
        glued = bundle.get("text/plain")
        if set(bundle) != {"text/plain"} or (recorded[key] is None and is_number(glued)):
            continue
        if as_shown(key, glued) != recorded[key]:
            wrong.append(f"{key}: the build glued {glued}, the snapshot records {recorded[key] or 'a number'}")
    assert not wrong, f"{language}/{name}:\n" + "\n".join(wrong)


def is_number(text: str) -> bool:
    try:
        return isinstance(literal_eval(text), int | float)
    except (SyntaxError, ValueError):
        return False


@pytest.mark.parametrize(("language", "name", "page"), PAGES, ids=IDS)
def test_prose_shows_the_glued_values(build, language, name, page):
    """Each {glue:text} of the prose, in order, pasted its key's glued value in the role's format
    (myst-nb's formatting, format spec `s` when none is given)."""
    data = glue_data(build, language, name)
    refs = [(key, spec) for role, key, spec in page.glue_refs if role == "text"]
    unknown = sorted({key for key, _ in refs if "text/plain" not in data.get(key, {})})
    assert not unknown, f"{language}/{name} glues {unknown}, which its execution did not glue as text"
    expected = [format_plain_text(data[key]["text/plain"], spec or "s") for key, spec in refs]
    shown = [
        node.astext()
        for node in doctree(build, language, name).findall(nodes.inline)
        if "pasted-text" in node["classes"]
    ]
    wrong = [
        f"{i}: {key}:{spec} should show {want!r}, shows {got!r}"
        for i, ((key, spec), want, got) in enumerate(zip(refs, expected, shown))
        if want != got
    ]
    assert len(shown) == len(expected) and not wrong, (
        f"{language}/{name}: {len(expected)} glue roles, {len(shown)} pasted values\n" + "\n".join(wrong)
    )


ICON_CLASS = re.compile(r"fa[srb]?|fa-[a-z0-9-]+")  # FontAwesome's styles and icon names
LOADS_SRC = {"script", "img", "iframe", "source", "video", "audio", "embed"}
LOADS_HREF = {"stylesheet", "preload", "modulepreload", "icon"}  # <link rel=…> that fetch their href
NOT_WORDS = "button, .claim-check, .claim-mark-joiner, .headerlink"  # inside a title or promise, not its words


@cache
class Article:
    """A built HTML file, parsed once: what it fetches, its links, its icon elements, and its top
    as a reader sees it: the head's <meta> and <link> tags, the article's <h1> text, and its promise,
    the first paragraph after the <h1> other than the execution badge, without the ✓ button of a
    checked sentence and the popover it opens (not words of the sentence)."""

    def __init__(self, path: Path):
        self.text = path.read_text(encoding="utf-8")
        soup = BeautifulSoup(self.text, "html.parser", multi_valued_attributes=None)
        tags = soup.find_all(True)
        self.loads = [(tag.name, url) for tag in tags if (url := fetched(tag))]
        self.links = [tag.get("href") for tag in tags if tag.name == "a"]
        self.icons = [
            tag["class"].split()
            for tag in tags
            if any(ICON_CLASS.fullmatch(name) for name in tag.get("class", "").split())
        ]
        self.head = [(tag.name, tag.attrs) for tag in soup.head.find_all(["meta", "link"])] if soup.head else []
        title = soup.select_one("article.bd-article h1")
        promise = title and next(
            (p for p in title.find_all_next("p") if "execution-badge" not in p.get("class", "").split() and words(p)),
            None,
        )
        self.title, self.promise = (words(element) if element else "" for element in (title, promise))

    def named(self, tag: str, key: str, value: str, attribute: str) -> list[str]:
        """The `attribute` of every head tag `tag` whose `key` is `value`, e.g. every <link rel="canonical">'s href."""
        return [attrs.get(attribute, "") for name, attrs in self.head if name == tag and attrs.get(key) == value]


def fetched(tag) -> str:
    """The URL an element makes the browser fetch, or ''."""
    if tag.name in LOADS_SRC:
        return tag.get("src", "")
    if tag.name == "link" and LOADS_HREF & set(tag.get("rel", "").split()):
        return tag.get("href", "")
    return ""


def words(element) -> str:
    """The element's text without what NOT_WORDS selects, its white space collapsed."""
    for node in element.select(NOT_WORDS):
        node.decompose()
    return " ".join(element.get_text().split())


BADGE = {
    "en": re.compile(r"^Executed with torch (\S+) on \d{4}-\d\d-\d\d \d\d:\d\d UTC: (\d+) snippets?, [\d.]+ s$"),
    "zh": re.compile(
        r"^本页代码由 torch (\S+) 于 \d{4}-\d\d-\d\d \d\d:\d\d UTC 实际执行：(\d+) 段代码，用时 [\d.]+ 秒$"
    ),
}


@pytest.mark.parametrize(
    ("language", "name", "page"),
    [p for p in PAGES if p[2].code_cells],
    ids=[i for i, p in zip(IDS, PAGES) if p[2].code_cells],
)
def test_an_executed_page_states_its_torch_and_snippet_count(build, language, name, page):
    badges = [
        node.astext()
        for node in doctree(build, language, name).findall(nodes.paragraph)
        if "execution-badge" in node["classes"]
    ]
    assert len(badges) == 1, f"{language}/{name}: {len(badges)} execution badges"
    stated = BADGE[language].match(badges[0])
    assert stated, f"{language}/{name}: the badge reads {badges[0]!r}"
    assert stated.groups() == (installed_torch(), str(len(page.code_cells))), badges[0]
    one = len(page.code_cells) == 1
    assert language != "en" or badges[0].count("snippets,") == (not one), badges[0]


def test_site_holds_both_languages_and_a_language_chooser(site):
    """What GitHub Pages serves: the two languages, a chooser, the judge's wheel, and nothing of the build's own."""
    assert sorted(p.name for p in site.iterdir()) == [
        "404.html",
        "en",
        "index.html",
        JUDGE_SITE_FOLDER,
        "robots.txt",
        "sitemap.xml",
        "zh",
    ]
    links = set(Article(site / "index.html").links)
    assert {"zh/index.html", "en/index.html"} <= links
    for language in pages.LANGUAGES:
        assert not (site / language / ".buildinfo").exists()


def test_the_site_serves_the_judge_to_pip(site):
    """<site>/judge/: the judge's wheel, the one the venvs have installed, and a page linking it with its hash,
    which pip reads with --find-links (`nox -s judge_wheel` installs from such a folder, served locally)."""
    import hashlib
    from importlib.metadata import distribution

    folder = site / JUDGE_SITE_FOLDER
    (wheel,) = folder.glob("*.whl")
    assert (
        wheel.name
        == f"{JUDGE_DISTRIBUTION.replace('-', '_')}-{distribution(JUDGE_DISTRIBUTION).version}-py3-none-any.whl"
    )
    links = set(Article(folder / "index.html").links)
    assert links == {f"{wheel.name}#sha256={hashlib.sha256(wheel.read_bytes()).hexdigest()}"}
    installed = {str(path) for path in distribution(JUDGE_DISTRIBUTION).files if path.suffix == ".py"}
    assert "exercise_judge/__init__.py" in installed and "exercise_judge/checks/_shared.py" in installed


def test_no_kernel_or_install_paths_in_pages_or_notebooks(site):
    """Normalisation hides these in the comparisons; a reader must not see them either."""
    leaks = [
        f"{pages.relative(p)}: {m.group(0)}"
        for p in [*site.rglob("*.html"), *site.rglob("*.ipynb")]
        for m in re.finditer(
            r"/tmp/ipykernel_\d+|site-packages/|" + re.escape(str(pages.ROOT)), p.read_text(encoding="utf-8")
        )
    ]
    assert not leaks, "\n".join(leaks[:20])


REMOTE = re.compile(r"(?:https?:)?//")
CSS_REMOTE = re.compile(r"url\(\s*['\"]?(?:https?:)?//")


def test_pages_load_nothing_from_another_host(site):
    """A link to another site is fine; a script, style, font or image from one is not (the real
    browser test records the requests; this reads what the files ask for)."""
    loads = [
        f"{pages.relative(p)}: <{tag}> {url}"
        for p in site.rglob("*.html")
        for tag, url in Article(p).loads
        if REMOTE.match(url)
    ]
    loads += [
        f"{pages.relative(p)}: {m.group(0)}"
        for p in site.rglob("*.css")
        for m in CSS_REMOTE.finditer(p.read_text(encoding="utf-8"))
    ]
    assert not loads, "\n".join(loads[:20])


def test_no_page_loads_the_fontawesome_script(site):
    """conf/_templates/layout.html: no page fetches the theme's FontAwesome script; icon_masks.py draws the icons."""
    served = [p for p in site.rglob("*.html") if "_static" not in p.parts]  # _static holds the theme's templates
    loads = [
        f"{pages.relative(p)}: <{tag}> {url}" for p in served for tag, url in Article(p).loads if "fontawesome" in url
    ]
    assert not loads, "\n".join(loads[:20])


# The block languages Sphinx lexes with the ipython3, python or pycon lexer it is given (it reads py,
# py3, python3 and default as python, or pycon when the block starts ">>>", pycon3 as pycon).
PYTHON_LANGUAGES = ("ipython3", "python", "py", "py3", "python3", "default", "pycon", "pycon3")
BLOCK_LANGUAGE = r'class="(?:[\w-]+ )*highlight-([\w-]+) notranslate"'  # a highlighted block's <div>
HIGHLIGHTED = re.compile(
    rf'<div {BLOCK_LANGUAGE}[^>]*><div class="highlight"><pre>(.*?)</pre>'
    r'|<code class="claim-check-code highlight">(.*?)</code>',
    re.DOTALL,
)
SPAN_CLASS = re.compile(r'<span class="([^"]+)">')
LINE_NUMBER = re.compile(r'<span class="linenos">[^<]*</span>')  # :linenos:, written inline by Sphinx


def drawn_as_plain_text(site: Path) -> set[str]:
    """The classes of Pygments' name, punctuation, operator and whitespace tokens that the theme's
    pygments.css draws, in light and in dark, as the code block draws its plain text: no rule of their
    own, or only the block's own colour."""
    css = (site / "en" / "_static" / "pygments.css").read_text(encoding="utf-8")
    rules = {scheme: {} for scheme in ("light", "dark")}
    for scheme, token, body in re.findall(
        r'html\[data-theme="(light|dark)"\] \.highlight(?: \.([\w-]+))? \{([^}]*)\}', css
    ):
        rules[scheme][token] = body.strip()
    plain = {scheme: re.search(r"(?<![\w-])color: #\w+", found[""]).group(0) for scheme, found in rules.items()}
    kinds = (Name, Punctuation, Operator, Text)
    tokens = {name for ttype, name in STANDARD_TYPES.items() if name and any(ttype in kind for kind in kinds)}
    return {
        token for token in tokens if all(rules[scheme].get(token, plain[scheme]) == plain[scheme] for scheme in rules)
    }


@cache  # the two languages' pages show the same code
def stock_spans(language: str, code: str) -> Counter:
    """The classes of the spans Pygments' own lexer writes, the one Sphinx's PygmentsBridge.get_lexer
    picks for the block's language and text."""
    name = "pycon" if language == "pycon3" else language
    if language in ("py", "python", "py3", "python3", "default"):
        name = "pycon" if code.startswith(">>>") else "python"
    lexer = get_lexer_by_name(name, **({} if name == "ipython3" else {"stripnl": False}))
    if language == "default" and any(ttype in Error for ttype, _ in lexer.get_tokens(code)):
        return Counter()  # Sphinx writes a default block that does not lex as Python as plain text
    return Counter(SPAN_CLASS.findall(highlight(code, lexer, HtmlFormatter(nowrap=True))))


def test_highlighted_python_has_an_element_only_where_its_look_changes(site):
    """book_extensions/highlighting.py and book.css's rule cover those block languages, and no page
    writes Python under another name (e.g. ipython, python-console); every page's code cells, Python
    blocks, doctests and claim checks hold no name, punctuation, operator or whitespace span that both
    schemes draw as plain text, and every other span that Pygments' own lexer gives their text (but
    line numbers and the .hll of glue and emphasised lines)."""
    assert set(BLOCK_LANGUAGES) == set(PYTHON_LANGUAGES), BLOCK_LANGUAGES
    css = (site / "en" / "_static" / "book.css").read_text(encoding="utf-8")
    styled = re.search(r":is\(([^)]*)\) pre \{ color: inherit; \}", css)
    assert styled and set(re.findall(r"div\.highlight-([\w-]+)", styled.group(1))) == set(PYTHON_LANGUAGES)
    python_lexers = {find_lexer_class_by_name(name) for name in ("ipython3", "python", "pycon")}
    plain, blocks, wrong = drawn_as_plain_text(site), 0, []
    for path in sorted(p for p in site.rglob("*.html") if "_static" not in p.parts):
        text = path.read_text(encoding="utf-8")
        found, languages = HIGHLIGHTED.findall(text), re.findall(BLOCK_LANGUAGE, text)
        if len(found) != len(languages) + text.count('<code class="claim-check-code'):
            wrong.append(f"{pages.relative(path)}: a highlighted block or claim check the test does not read")
        for language in set(languages) - set(PYTHON_LANGUAGES):
            with contextlib.suppress(ClassNotFound):  # the book's own lexers are Sphinx's, not Pygments'
                if find_lexer_class_by_name(language) in python_lexers:
                    wrong.append(f"{pages.relative(path)}: a ```{language} block: write python, ipython3 or pycon")
        for language, shown in (
            (language or "python", block or check)
            for language, block, check in found
            if check or language in PYTHON_LANGUAGES
        ):
            spans = Counter(SPAN_CLASS.findall(shown := LINE_NUMBER.sub("", shown)))
            del spans["hll"]
            code = html.unescape(re.sub(r"<[^>]+>", "", shown))
            expected = Counter({token: n for token, n in stock_spans(language, code).items() if token not in plain})
            blocks += 1
            if spans != expected:
                wrong.append(
                    f"{pages.relative(path)}, the block from {code[:40]!r}: "
                    f"spans {dict(spans - expected)} more, {dict(expected - spans)} fewer"
                )
    assert plain and blocks and not wrong, (sorted(plain), blocks, wrong[:5])


def masks(css: str) -> dict[frozenset[str], str]:
    """{the classes a rule of book-icons.css selects: the SVG path of the `--book-icon` mask it sets}."""
    found = {}
    for rule in css.split("}"):
        selector, _, body = rule.partition("{")
        if body.startswith('--book-icon:url("data:image/svg+xml,') and body.endswith('")'):
            svg = ElementTree.fromstring(unquote(body.split(",", 1)[1].removesuffix('")')))
            found[frozenset(selector.strip().split(".")[1:])] = svg.find("{http://www.w3.org/2000/svg}path").get("d")
    return found


def fontawesome_paths() -> tuple[dict[str, str], dict[str, set[str]]]:
    """From the theme's own files: {icon class: code point}, as its stylesheet's glyph rules give
    them (`.fa-bars,.fa-navicon{--fa:"\\f0c9"}`), and {code point: the SVG paths fontawesome.js
    draws for it} (`…,"f0c9","M0 96…"]`, one per style)."""
    glyphs = {}
    for rule in THEME_STYLESHEET.read_text(encoding="utf-8").split("}"):
        selector, _, body = rule.partition("{")
        if glyph := re.fullmatch(r'--fa:"\\?([^"]+)"', body):
            code = glyph[1] if len(glyph[1]) > 1 else f"{ord(glyph[1]):x}"
            glyphs |= {name.strip().removeprefix("."): code.lower() for name in selector.split(",")}
    paths = {}
    for code, path in re.findall(r'"([0-9a-f]{4,5})","(M[^"]+)"\]', FONTAWESOME_JS.read_text(encoding="utf-8")):
        paths.setdefault(code, set()).add(path)
    return glyphs, paths


def test_every_icon_a_page_shows_is_drawn_by_its_own_mask(site):
    """icon_masks.py draws each icon element as an SVG mask in _static/book-icons.css (the theme's
    icon fonts are not loaded): every element with a FontAwesome class must match exactly one
    mask rule, and that mask must be FontAwesome's drawing of the element's icon, found through the
    code point the theme's stylesheet gives its class; a missing rule or path would show a blank."""
    glyphs, paths = fontawesome_paths()
    wrong, checked = [], 0
    for language in pages.LANGUAGES:
        css = (site / language / "_static" / "book-icons.css").read_text(encoding="utf-8")
        assert "mask:var(--book-icon)" in css, f"{language}/_static/book-icons.css paints no element with its mask"
        drawn = masks(css)
        for page in (p for p in (site / language).rglob("*.html") if "_static" not in p.parts):
            for classes in Article(page).icons:
                checked += 1
                rules = [(selected, path) for selected, path in drawn.items() if selected <= set(classes)]
                codes = [glyphs[name] for selected, _ in rules for name in selected if name in glyphs]
                if len(rules) != 1 or len(codes) != 1:
                    wrong.append(f"{pages.relative(page)}: {' '.join(classes)}: {len(rules)} mask rules")
                elif rules[0][1] not in paths.get(codes[0], ()):
                    wrong.append(
                        f"{pages.relative(page)}: {' '.join(classes)}: its mask draws "
                        f"{rules[0][1][:12]!r}…, not FontAwesome's U+{codes[0]}"
                    )
    assert checked, "no icon element found: the theme no longer writes icons as FontAwesome classes"
    assert not wrong, "icons not drawn by their own mask in book-icons.css:\n" + "\n".join(sorted(set(wrong))[:20])


# --- What search engines and link previews read (book_extensions/seo.py, sphinxext-opengraph, conf/assemble_site.py's sitemap)


HREFLANG_AND_LOCALE = {
    "zh": ("zh-CN", "zh_CN"),
    "en": ("en", "en_US"),
}  # of each tree, typed here, not read from seo.py
CJK = re.compile(r"[\u4e00-\u9fff]")


def page_url(language: str, name: str) -> str:
    return f"{SITE_URL}{language}/{Path(name).with_suffix('.html')}"


@pytest.mark.parametrize(("language", "name", "page"), PAGES, ids=IDS)
def test_each_page_describes_itself_with_its_promise(site, language, name, page):
    """One <meta name="description">, in the page's language: the promise as the page shows it,
    whole when it fits a results page, else cut after a whole sentence, or before a clause or word
    with "…", never inside an English word, and still at least half as long as the limit."""
    article = Article(site / language / Path(name).with_suffix(".html"))
    descriptions = article.named("meta", "name", "description", "content")
    assert len(descriptions) == 1, f"{language}/{name}: {len(descriptions)} meta descriptions"
    said, promise = descriptions[0], article.promise
    assert promise, f"{language}/{name}: no paragraph after the title"
    assert bool(CJK.search(said)) == (language == "zh"), (
        f"{language}/{name}: the description is in another language: {said!r}"
    )
    if said != promise:
        limit = DESCRIPTION_LENGTH[pages.LANGUAGES[language]]
        kept = said.removesuffix("…")
        assert limit // 2 <= len(said) <= limit, f"{language}/{name}: {len(said)} characters, limit {limit}: {said!r}"
        assert promise.startswith(kept), f"{language}/{name}: {said!r} is not the start of the promise {promise!r}"
        following = promise[len(kept)]
        if kept == said:
            assert kept[-1] in ".!?。！？" and (following.isspace() or kept[-1] in "。！？"), (
                f"{language}/{name}: cut inside a sentence without …: {said!r}"
            )
        else:
            assert not (re.match(r"\w", kept[-1], re.ASCII) and re.match(r"\w", following, re.ASCII)), (
                f"{language}/{name}: cut inside the word {kept.split()[-1]}{following}…: {said!r}"
            )


@pytest.mark.parametrize(("language", "name", "page"), PAGES, ids=IDS)
def test_each_page_names_its_absolute_urls_and_open_graph(site, language, name, page):
    """The canonical URL is the page's own under the site URL and its language folder; the hreflang
    alternates are absolute and name the page in both languages, x-default the Chinese one, each a
    file the site holds; Open Graph repeats the title, description, URL and both locales, each once."""
    article = Article(site / language / Path(name).with_suffix(".html"))
    canonical = article.named("link", "rel", "canonical", "href")
    assert canonical == [page_url(language, name)], f"{language}/{name}: canonical {canonical}"
    alternates = {
        attrs["hreflang"]: attrs.get("href", "")
        for tag, attrs in article.head
        if tag == "link" and attrs.get("rel") == "alternate" and "hreflang" in attrs
    }
    assert alternates == {
        **{HREFLANG_AND_LOCALE[tree][0]: page_url(tree, name) for tree in pages.LANGUAGES},
        "x-default": page_url("zh", name),
    }, f"{language}/{name}: alternates {alternates}"
    assert all((site / url.removeprefix(SITE_URL)).is_file() for url in alternates.values()), alternates
    properties = [
        (attrs["property"], attrs.get("content", ""))
        for tag, attrs in article.head
        if tag == "meta" and attrs.get("property", "").startswith("og:")
    ]
    graph = dict(properties)
    assert len(graph) == len(properties), f"{language}/{name}: an Open Graph property twice: {properties}"
    assert graph["og:title"] == article.title, (
        f"{language}/{name}: og:title {graph['og:title']!r}, h1 {article.title!r}"
    )
    tab = html.unescape(re.search(r"<title>(.*?)</title>", article.text).group(1))
    book = graph["og:site_name"]
    assert tab == (book if article.title == book else f"{article.title} — {book}"), (
        f"{language}/{name}: <title> {tab!r}"
    )
    assert graph["og:description"] == article.named("meta", "name", "description", "content")[0]
    assert graph["og:url"] == canonical[0]
    assert graph["og:type"] == ("website" if name == "index.md" else "article"), f"{language}/{name}: og:type"
    other = next(tree for tree in pages.LANGUAGES if tree != language)
    locales = (graph["og:locale"], graph["og:locale:alternate"])
    assert locales == (HREFLANG_AND_LOCALE[language][1], HREFLANG_AND_LOCALE[other][1]), f"{language}/{name}: {locales}"


def test_the_sitemap_lists_every_page_of_both_languages(site):
    """sitemap.xml (and robots.txt naming it) lists exactly the built pages search engines may index,
    with the same alternates as their heads; the pages kept out (noindex) are Sphinx's generated ones."""
    built = {
        page_url(language, str(path.relative_to(site / language))): path
        for language in pages.LANGUAGES
        for path in (site / language).rglob("*.html")
        if not path.relative_to(site / language).parts[0].startswith("_")
    }
    indexed = {
        url: path
        for url, path in built.items()
        if "noindex" not in Article(path).named("meta", "name", "robots", "content")
    }
    assert {Path(url).stem for url in set(built) - set(indexed)} == {"search", "genindex"}
    assert sorted(indexed) == sorted(page_url(language, name) for language, name, _ in PAGES)
    namespaces = {"map": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml"}
    entries = ElementTree.parse(site / "sitemap.xml").getroot().findall("map:url", namespaces)
    listed = [entry.findtext("map:loc", namespaces=namespaces) for entry in entries]
    assert sorted(listed) == sorted(indexed), "the sitemap lists other pages than the site holds"
    for entry, url in zip(entries, listed):
        in_sitemap = {link.get("hreflang"): link.get("href") for link in entry.findall("xhtml:link", namespaces)}
        in_head = {
            attrs["hreflang"]: attrs["href"]
            for tag, attrs in Article(indexed[url]).head
            if tag == "link" and attrs.get("rel") == "alternate" and "hreflang" in attrs
        }
        assert in_sitemap == in_head, f"{url}: the sitemap's alternates {in_sitemap}, the page's {in_head}"
    assert f"Sitemap: {SITE_URL}sitemap.xml" in (site / "robots.txt").read_text(encoding="utf-8").splitlines()


def test_the_chooser_is_described_and_the_404_page_is_not_indexed(site):
    chooser = Article(site / "index.html")
    assert chooser.named("link", "rel", "canonical", "href") == [SITE_URL]
    assert chooser.named("meta", "property", "og:url", "content") == [SITE_URL]
    described = chooser.named("meta", "name", "description", "content")
    assert len(described) == 1 and CJK.search(described[0]) and re.search(r"[A-Za-z]{4}", described[0]), described
    assert "$" not in (site / "index.html").read_text(encoding="utf-8"), (
        "a placeholder of conf/site-index.html was left"
    )
    assert Article(site / "404.html").named("meta", "name", "robots", "content") == ["noindex"]
