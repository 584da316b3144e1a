"""The extensions on small fixture projects: their Sphinx conventions, and each one's effect alone.

What they keep in the environment between builds (the page model, one watched file per page, one file
every page depends on): kept through a parallel read, dropped with its page; a watched file re-reads its
page, the shared file or a new ENV_VERSION every page. A setting declared with add_config_value. Then
each extension in a project of its own (built as HTML where a written page is checked), on a page
written for it: PyTorch API links, the execution badge, the themes' words in Chinese, deferred
scripts, highlighting, the icons' masks, the zh search's stemmer and splitter, what search engines
read (seo), and a broken glossary reported while the build goes on. Most are checked on every page
of the built book too (test_site.py, test_upstream.py, the browser tests)."""

import dataclasses
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
import sphinx.highlighting
import sphinx.locale
import sphinx.search
from babel.messages.pofile import read_po
from bs4 import BeautifulSoup
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace, patch_docutils

import book_extensions
import book_settings
from book_extensions import pages
from scratch_book import KERNEL_START_RACE

pytestmark = [
    pytest.mark.torch_independent,  # see pyproject.toml's markers
    # Other packages' warnings in this process, which pytest's "error" filter would fail on:
    pytest.mark.filterwarnings("ignore:'sphinx_book_theme._transforms.HandleFootnoteTransform.app' is deprecated"),
    pytest.mark.filterwarnings("ignore:unclosed file .*jieba:ResourceWarning"),  # the zh search's word cutter
    pytest.mark.filterwarnings("ignore:Exception ignored in.*jieba:pytest.PytestUnraisableExceptionWarning"),
]

CONF = """\
extensions = ["myst_parser", "book_extensions.pages"]


def setup(app):
    from pathlib import Path

    from book_extensions import pages, rereads

    rereads.watch(app, "notes", lambda page: [page.path.with_suffix(".note")])
    pages.every_page_depends_on(app, Path(app.confdir, "table.toml"))
"""
PAGES = [f"page-{n}" for n in range(6)]
# What reading a page stores as of ENV_VERSION (the page model's fields, the environment's attributes).
# A change to it needs ENV_VERSION + 1 in conf/book_extensions/__init__.py, so that Sphinx reads every
# page anew instead of unpickling models of the old shape; then record the new format here.
STORED = (
    3,
    {
        "Page": [
            "path",
            "text",
            "front_matter",
            "code_cells",
            "labels",
            "roles",
            "directives",
            "prose",
            "front_matter_error",
        ],
        "CodeCell": ["page", "line", "end_line", "language", "options", "body"],
        "Role": ["name", "content", "line"],
        "Directive": ["name", "argument", "line", "options"],
        "environment": ["book_fingerprints_notes", "book_pages"],
    },
)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "conf.py").write_text(CONF)
    (tmp_path / "table.toml").write_text("")
    (tmp_path / "index.md").write_text("# Index\n\n```{toctree}\n" + "\n".join(PAGES) + "\n```\n")
    for name in PAGES:
        (tmp_path / f"{name}.md").write_text(f"({name})=\n# {name}\n\nSome {{sup}}`prose`.\n")
    return tmp_path


def build(
    project,
    parallel: int = 1,
    warnings: io.StringIO | None = None,
    builder: str = "dummy",
    **settings,
) -> Sphinx:
    # Three tables Sphinx keeps per process, which these extensions fill, start empty of a build's
    # catalogs and get back their entries after it: the message catalogs (chrome.py's), the lexers
    # (highlighting.py's) and the search languages (zh_search.py's). Not given back: jieba's loaded
    # dictionary, and Sphinx's strings translated when its modules were first imported.
    saved = [(table, dict(table)) for table in (sphinx.highlighting.lexer_classes, sphinx.search.languages)]
    translators = dict(sphinx.locale.translators)
    sphinx.locale.translators.clear()
    try:
        with patch_docutils(project), docutils_namespace():  # as sphinx-build: directives and roles per build
            app = Sphinx(
                project,
                project,
                project / "_build" / "html",
                project / "_build" / "doctrees",
                builder,
                status=io.StringIO(),
                warning=warnings or io.StringIO(),
                parallel=parallel,
                # A dict of this build's own: Sphinx's default is one object for the whole process, and
                # extensions (myst-parser's ".md") add to it.
                confoverrides={"source_suffix": {".rst": "restructuredtext"}, **settings},
            )
            app.build()
    finally:
        for table, entries in [*saved, (sphinx.locale.translators, translators)]:
            table.clear()
            table.update(entries)
    return app


def read_again(before: Sphinx, after: Sphinx) -> set[str]:
    """The pages the second build read: Sphinx stamps a page with the time it was read."""
    return {docname for docname, stamp in after.env.all_docs.items() if before.env.all_docs.get(docname) != stamp}


@pytest.mark.parametrize("parallel", [1, 2], ids=["serial", "parallel"])
def test_a_watched_file_that_comes_changes_or_goes_re_reads_its_page(project, parallel):
    app = build(project, parallel)
    assert set(app.env.book_pages) == {"index", *PAGES}, "a page read in a worker lost its model"
    assert app.env.book_pages["page-3"].labels == ["page-3"]
    note = project / "page-3.note"
    steps = [
        ("nothing changed", lambda: None),
        ("the file came", lambda: note.write_text("one")),
        ("the file changed", lambda: os.utime(note, ns=(note.stat().st_mtime_ns + 10**9,) * 2)),
        ("the file went", note.unlink),
    ]
    for step, change in steps:
        change()
        app, before = build(project, parallel), app
        assert read_again(before, app) == (set() if step == "nothing changed" else {"page-3"}), step


def test_a_removed_page_leaves_neither_model_nor_fingerprint(project):
    build(project)
    (project / "page-5.md").unlink()
    app = build(project)
    assert "page-5" not in app.env.book_pages, "a removed page kept its model"
    assert "page-5" not in app.env.book_fingerprints_notes, "a removed page kept its fingerprint"


def test_a_file_every_page_depends_on_re_reads_every_page(project):
    first = build(project)
    table = project / "table.toml"
    os.utime(table, ns=(time.time_ns() + 10**10,) * 2)  # newer than the pages' reading, whatever the clock's grain
    assert read_again(first, build(project)) == {"index", *PAGES}, "a changed table.toml did not re-read every page"


def test_a_new_env_version_reads_every_page_anew(project, monkeypatch):
    first = build(project)
    monkeypatch.setattr(book_extensions, "ENV_VERSION", book_extensions.ENV_VERSION + 1)
    assert read_again(first, build(project)) == {"index", *PAGES}, "a new ENV_VERSION did not re-read every page"


def test_what_the_environment_stores_is_what_env_version_was_recorded_with(project):
    found = {
        cls.__name__: [field.name for field in dataclasses.fields(cls)]
        for cls in (pages.Page, pages.CodeCell, pages.Role, pages.Directive)
    }
    found["environment"] = sorted(name for name in vars(build(project).env) if name.startswith("book_"))
    assert (book_extensions.ENV_VERSION, found) == STORED, (
        "what reading a page stores changed: bump ENV_VERSION in conf/book_extensions/__init__.py and record "
        "the new format in STORED"
    )


@pytest.mark.parametrize("publish", [False, True])
def test_conf_py_takes_book_publish_from_the_environment(publish):
    env = {key: value for key, value in os.environ.items() if key != book_settings.PUBLISH_ENV}
    read = subprocess.run(
        [sys.executable, "-c", "import runpy; print(runpy.run_path('conf/conf.py')['book_publish'])"],
        cwd=book_settings.ROOT,
        env={**env, **({book_settings.PUBLISH_ENV: "1"} if publish else {})},
        capture_output=True,
        text=True,
        check=True,
    )
    assert read.stdout.strip() == str(publish), read.stderr


@pytest.mark.parametrize("publish", [False, True])
def test_book_publish_fails_a_build_whose_records_do_not_verify_the_book(tmp_path, monkeypatch, publish):
    from book_extensions import verification

    monkeypatch.setattr(verification, "RECORDS", tmp_path / "no-records")
    (tmp_path / "conf.py").write_text(
        'extensions = ["myst_parser", "book_extensions.languages", "book_extensions.verification"]\n'
    )
    (tmp_path / "index.md").write_text("# Verification\n\n```{verification-verdict}\n```\n")
    build(tmp_path, warnings=(warnings := io.StringIO()), language="en", book_publish=publish)
    complaint = "book_publish is set (BOOK_PUBLISH), but the records do not verify the book"
    assert (complaint in warnings.getvalue()) == publish, (
        f"book_publish={publish}, no record: the build {'did not fail' if publish else 'failed'}"
    )


def test_inline_code_naming_a_pytorch_api_links_to_its_reference_page(tmp_path):
    (tmp_path / "conf.py").write_text('extensions = ["myst_parser", "book_extensions.api_links"]\n')
    (tmp_path / "index.md").write_text(
        "# APIs\n\n`torch.no_grad()`, `nn.Linear(1024, 1024)`, `Tensor.detach()`, `optimizer.step()`; not "
        "`loss.backward()` (a variable's method), `torch.no_such_api()`, a code block or code already linked: "
        "[`torch.enable_grad()`](https://example.org/own).\n\n```python\ntorch.no_grad()\n```\n"
    )
    doctree = build(tmp_path, language="en").env.get_doctree("index")
    reference = "https://docs.pytorch.org/docs/stable/"
    links = {link.astext(): (link["refuri"], link.get("reftitle")) for link in doctree.findall(nodes.reference)}
    assert links == {
        "torch.no_grad()": (f"{reference}generated/torch.no_grad.html", "PyTorch reference"),
        "nn.Linear(1024, 1024)": (f"{reference}generated/torch.nn.Linear.html", "PyTorch reference"),
        "Tensor.detach()": (f"{reference}generated/torch.Tensor.detach.html", "PyTorch reference"),
        "optimizer.step()": (f"{reference}generated/torch.optim.Optimizer.step.html", "PyTorch reference"),
        "torch.enable_grad()": ("https://example.org/own", None),
    }, links


def html_project(tmp_path, conf: str, pages: dict[str, str], language: str = "en"):
    """Build `pages` ({file name: text}) with `conf` as HTML; {page name: its parsed HTML}, and the output folder."""
    (tmp_path / "conf.py").write_text(conf)
    for name, text in pages.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    outdir = build(tmp_path, builder="html", language=language).outdir
    written = {
        page.stem: BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser") for page in outdir.glob("*.html")
    }
    return written, outdir


def test_an_executed_page_says_under_its_title_which_torch_ran_it_when_and_how_much(tmp_path, monkeypatch):
    conf = (
        'extensions = ["myst_nb", "book_extensions.pages", "book_extensions.languages", "book_extensions.badges"]\n'
        'html_theme = "sphinx_book_theme"\nnb_execution_mode = "force"\nbook_torch = "9.9.9"\n'
    )
    cell = "```{code-cell} python3\nprint(1 + 1)\n```\n\n"
    page = "---\nfile_format: mystnb\nkernelspec:\n  name: python3\n---\n# Ran\n\n" + 2 * cell
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))  # the kernel's history, not the user's
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    started = datetime.now(timezone.utc).replace(second=0, microsecond=0)
    try:
        # Eight hours east of UTC: a badge that printed local time as UTC would fall outside the window.
        monkeypatch.setenv("TZ", "BOOK-8")
        time.tzset()
        for attempt in range(2):  # once more if the kernel lost its port to another worker's (scratch_book.py)
            try:
                written, _ = html_project(tmp_path, conf, {"index.md": page})
                break
            except RuntimeError as error:
                if attempt or KERNEL_START_RACE.removeprefix("RuntimeError: ") not in str(error):
                    raise
    finally:
        monkeypatch.undo()
        time.tzset()
    badge = written["index"].find(class_="execution-badge")
    said = re.fullmatch(r"Executed with torch 9\.9\.9 on (.+ UTC): 2 snippets, \d+\.\d s", badge.get_text())
    assert said and badge.find_previous_sibling().name == "h1", badge.parent
    ran = datetime.strptime(said[1], "%Y-%m-%d %H:%M UTC").replace(tzinfo=timezone.utc)
    assert started <= ran <= datetime.now(timezone.utc), f"the badge says the code ran at {ran}"


def test_the_themes_words_are_chinese_on_a_chinese_page(tmp_path, monkeypatch):
    from book_extensions import chrome
    from book_extensions.chrome import HARD_CODED

    # A copy: the build compiles each catalog's .mo beside its .po, which the book's tree must not get
    # from a test (another worker may be copying conf/ for a scratch book).
    LOCALES = shutil.copytree(chrome.LOCALES, tmp_path / "locales", ignore=shutil.ignore_patterns("*.mo"))
    monkeypatch.setattr(chrome, "LOCALES", LOCALES)
    conf = f'extensions = ["book_extensions.chrome"]\nhtml_theme = "sphinx_book_theme"\nlocale_dirs = ["{LOCALES}"]\n'
    sections = "Page\n====\n\nText.\n\nOne\n---\n\nText.\n\nTwo\n---\n\nText.\n"  # a page table of contents
    written, _ = html_project(tmp_path, conf, {"index.rst": sections}, language="zh_CN")
    page = str(written["index"])
    with (LOCALES / "zh_CN" / "LC_MESSAGES" / "booktheme.po").open("rb") as po:
        download = read_po(po)["Download this page"].string
    # The four words the themes' templates hard-code in English, written out here (not read from HARD_CODED).
    english = [
        'aria-label="Main"',
        'aria-label="Page"',
        'title="Toggle primary sidebar"',
        'title="Toggle secondary sidebar"',
    ]
    assert not [word for word in english if word in page], page
    assert all(HARD_CODED["zh_CN"][word] in page for word in english)
    assert "Download this page" not in page and f'aria-label="{download}"' in page


def test_every_script_but_the_options_is_deferred_except_on_the_search_page(tmp_path):
    conf = (
        'extensions = ["book_extensions.deferred_scripts"]\n\n\ndef setup(app):\n'
        '    app.add_js_file("extra.js")\n    app.add_js_file("early.js", loading_method="async")\n'
        '    app.add_js_file(None, body="var inline = 1;")\n'
    )
    written, _ = html_project(tmp_path, conf, {"index.rst": "Scripts\n=======\n\nText.\n"})

    def loading(page: str) -> dict[str, str]:
        scripts = written[page].head.find_all("script")
        return {s.get("src", "inline").split("?")[0]: s.get("defer") or s.get("async") or "blocking" for s in scripts}

    assert loading("index") == {
        "_static/documentation_options.js": "blocking",
        "_static/doctools.js": "defer",
        "_static/sphinx_highlight.js": "defer",
        "_static/extra.js": "defer",
        "_static/early.js": "async",
        "inline": "blocking",
    }
    assert "defer" not in {how for src, how in loading("search").items() if src.startswith("_static/")}


def test_python_names_and_punctuation_are_written_as_plain_text(tmp_path):
    conf = (
        'extensions = ["myst_parser", "book_extensions.highlighting"]\nhtml_theme = "sphinx_book_theme"\n'
        'html_theme_options = {"pygments_light_style": "a11y-high-contrast-light", '
        '"pygments_dark_style": "a11y-high-contrast-dark"}\n'
    )
    written, _ = html_project(
        tmp_path, conf, {"index.md": "# Code\n\n```python\ntotal = len(items)  # how many\n```\n"}
    )
    block = written["index"].find("div", class_="highlight").pre
    tokens = [(span.get("class"), span.get_text()) for span in block.find_all("span") if span.get_text()]
    # The styles colour the operator, the builtin and the comment, and draw names and brackets as text.
    assert tokens == [(["o"], "="), (["nb"], "len"), (["c1"], "# how many")], tokens
    assert block.get_text() == "total = len(items)  # how many\n"


def test_every_icon_on_the_page_has_a_mask_and_the_stylesheet_no_glyph_rules(tmp_path):
    from book_extensions.icon_masks import THEME_STYLESHEET

    conf = 'extensions = ["book_extensions.icon_masks"]\nhtml_theme = "sphinx_book_theme"\n'
    written, outdir = html_project(tmp_path, conf, {"index.rst": "Page\n====\n\nText.\n"})
    masks = (outdir / "_static" / "book-icons.css").read_text(encoding="utf-8")
    masked = set(
        re.findall(
            r"^\.(fa[srb]|fa-solid|fa-regular|fa-brands)\.fa-([a-z0-9-]+)\{--book-icon:url\(\"data:image/svg\+xml,",
            masks,
            re.M,
        )
    )
    styles = ("fas", "fa-solid", "far", "fa-regular", "fab", "fa-brands")
    shown = {
        (style, name.removeprefix("fa-"))
        for icon in written["index"].find_all(class_=styles)
        for style in icon["class"]
        if style in styles
        for name in icon["class"]
        if name.startswith("fa-") and name not in (*styles, "fa-lg", "fa-fw")
    }
    assert ("fa-solid", "bars") in shown and shown <= masked, sorted(shown - masked)
    served = (outdir / "_static" / "styles" / THEME_STYLESHEET.name).read_text(encoding="utf-8")
    glyph_rule = '{--fa:"'
    assert THEME_STYLESHEET.read_text(encoding="utf-8").count(glyph_rule) > 1000 and glyph_rule not in served


def test_the_zh_search_script_defines_the_stemmer_it_calls_and_splits_with_the_books_splitter(tmp_path):
    from book_extensions import zh_search

    conf = 'extensions = ["book_extensions.zh_search"]\n'
    _, outdir = html_project(tmp_path, conf, {"index.rst": "梯度\n====\n\n反向传播累加梯度。\n"}, language="zh_CN")
    script = (outdir / "_static" / "language_data.js").read_text(encoding="utf-8")
    called = re.search(r"window\.Stemmer = (\w+);", script)[1]
    assert re.search(rf"\b(?:var|let|const|class|function) {called}\b", script), f"{called} is called, never defined"
    assert Path(zh_search.__file__).with_name("zh_split_query.js").read_text(encoding="utf-8") in script


def test_search_engines_read_the_promise_the_alternates_and_the_sitemap(tmp_path):
    conf = (
        'extensions = ["myst_parser", "sphinxext.opengraph", "book_extensions.seo"]\nhtml_theme = "sphinx_book_theme"\n'
        'html_baseurl = "https://book.example/"\nogp_type = "article"\nogp_enable_meta_description = False\n'
        'ogp_social_cards = {"enable": False}\n'
    )
    first, second = (
        "The graph is built as the forward pass runs, one node per operation.",
        "Backward walks it once and frees it, unless told to keep it.",
    )
    pages = {
        "index.md": "# Home\n\n```{toctree}\nlong\n```\n",
        "long.md": f"# Long\n\n{first} {second} A third sentence that a results page has no room for.\n\nMore.\n",
    }
    written, outdir = html_project(tmp_path, conf, pages)

    def meta(page: str, **attributes) -> list[str]:
        return [tag.get("content") or tag.get("href") for tag in written[page].find_all(attrs=attributes)]

    assert meta("long", name="description") == meta("long", property="og:description") == [f"{first} {second}"]
    assert meta("index", name="description") == [], "a page with no promise has no description"
    alternates = {"zh-CN": "https://book.example/zh/long.html", "en": "https://book.example/en/long.html"}
    assert {tag["hreflang"]: tag["href"] for tag in written["long"].find_all("link", rel="alternate")} == {
        **alternates,
        "x-default": alternates["zh-CN"],
    }
    assert meta("long", rel="canonical") == meta("long", property="og:url") == [alternates["en"]]
    assert (meta("index", property="og:type"), meta("long", property="og:type")) == (["website"], ["article"])
    # The theme writes no robots tag of its own (Sphinx's basic theme does, on search.html).
    assert meta("search", name="robots") == meta("genindex", name="robots") == ["noindex"]
    assert meta("long", name="robots") == []
    listed = json.loads((outdir.parent / "sitemap.json").read_text(encoding="utf-8"))
    assert [page["url"] for page in listed] == ["https://book.example/en/index.html", alternates["en"]]
    assert listed[1]["alternates"] == {**alternates, "x-default": alternates["zh-CN"]}


@pytest.mark.parametrize(
    ("glossary", "said"),
    [
        (b"term = [1]\n", "ERROR: {path}: `term` must be written as [[term]] tables"),
        (b"term = []\n", "ERROR: {path}: no [[term]] entries"),
        # TOML's errors at the end of the file: named where a string left open opens, else at the last line
        ('[[term]]\ncode = "a"\nzh_def = """甲\nen_def = "A."\n'.encode(), "{path}:3: ERROR: Unterminated string"),
        ('[[term]]\ncode = "a"\nzh_def = """甲"""\nzh_also = ["x",\n\n'.encode(), "{path}:4: ERROR: Invalid value"),
        ('[[term]]\nzh = "叶子张量"\n'.encode("gbk"), "{path}:2: ERROR: is not UTF-8: invalid continuation byte"),
    ],
    ids=["not-a-table", "no-entries", "open-string", "open-list", "not-utf-8"],
)
def test_a_broken_glossary_is_an_error_of_the_build_which_goes_on(tmp_path, monkeypatch, glossary, said):
    """Reported by both readers of a zh build, the search dictionary and the glossary page, as an error
    (which fails the book's builds, run with -W) while the build goes on to its end."""
    from book_extensions import glossary as extension

    broken = tmp_path / "glossary.toml"
    broken.write_bytes(glossary)
    monkeypatch.setattr(extension, "GLOSSARY", broken)
    (tmp_path / "conf.py").write_text('extensions = ["book_extensions.glossary"]\n')
    (tmp_path / "index.rst").write_text("Glossary\n========\n\n.. book-glossary::\n")
    build(tmp_path, warnings=(warnings := io.StringIO()), language="zh_CN")
    assert warnings.getvalue().count(said.format(path=pages.relative(broken))) == 2, warnings.getvalue()
    # An en build has no search dictionary: its glossary page reports it, and again on the next build
    # with nothing changed (Sphinx repeats no warning of a page it does not read again).
    for build_number in (1, 2):
        build(tmp_path, warnings=(warnings := io.StringIO()), language="en")
        assert said.format(path=pages.relative(broken)) in warnings.getvalue(), build_number
