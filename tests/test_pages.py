"""The two language trees mirror each other, and every page follows the book's rules.

Read from the Markdown sources by the page model (conf/book_extensions/pages.py), no build needed:
both trees hold the same pages; twins agree in labels, snippets, references, cell tags, glue keys,
often-said ids, torch-version claims and front matter, hold every example Sybil reads (cells, code
blocks, doctests, skips, namespace clears) on the same line, so Sybil runs the zh pages only
(docs/conftest.py), and are line-aligned (tests/twin_lines.py); every commit since the recorded base
edited their lines together; each page passes Page.problems(), every snippet is loaded by a page,
and each correction of the sources has its "often said / measured" callout in both languages."""

import doctest
import subprocess
from collections import Counter

import pytest
from sybil import Sybil

import book_settings
import twin_lines
from book_extensions import pages
from code_cells import page_parsers

pytestmark = pytest.mark.torch_independent  # see pyproject.toml's markers

ZH, EN = (pages.book_pages(language) for language in pages.LANGUAGES)
ALL_PAGES = [page for tree in (ZH, EN) for page in tree.values()]
page_examples = Sybil(parsers=page_parsers())  # as docs/conftest.py reads the zh pages


def what_sybil_runs(document) -> list[tuple]:
    """Each example Sybil finds on a page: its line, what runs it, and what it runs (a cell's snippet and
    tags; a doctest's source, expected output and exception; a block's code; a skip's arguments)."""
    found = []
    for example in document:
        parsed, evaluator = example.parsed, example.region.evaluator
        if isinstance(parsed, pages.CodeCell):  # a cell without :load: has no snippet (Page.problems says so)
            parsed = (pages.relative(parsed.snippet) if parsed.snippet else None, parsed.tags)
        elif isinstance(parsed, doctest.Example):
            parsed = (parsed.source, parsed.want, parsed.exc_msg)
        found.append(
            (
                document.text.count("\n", 0, example.region.start) + 1,
                getattr(evaluator, "__qualname__", type(evaluator).__qualname__),
                str(parsed),
            )
        )
    return found


def test_both_languages_hold_the_same_pages():
    missing = [
        f"{pages.relative(page)} is missing: the twin of {pages.relative(twin)}" for page, twin in pages.missing_twins()
    ]
    assert not missing, "\n".join(missing)


TWINS = sorted(ZH.keys() & EN.keys())


@pytest.mark.parametrize("name", TWINS)
@pytest.mark.parametrize(
    "what",
    [
        "labels",
        "snippets",
        "references",
        "cell tags",
        "glue keys",
        "often-said ids",
        "torch-version claims",
        "front matter",
        "what Sybil runs",
    ],
)
def test_twins_agree(name, what):
    def facts(page):
        if what == "labels":
            return page.labels
        if what == "snippets":
            return [pages.relative(p) for p in page.snippets]
        if what == "references":
            return [pages.relative(p) for p in page.references]
        if what == "cell tags":
            return [cell.tags for cell in page.code_cells]
        if what == "glue keys":
            return sorted(Counter(page.glue_keys).items())
        if what == "often-said ids":
            return page.directive_arguments("often-said")
        if what == "torch-version claims":
            return sorted(claim for _, claim in page.version_claims)
        if what == "front matter":  # myst-nb's settings for the page's run (kernel, mystnb: execution_…)
            return page.front_matter
        return what_sybil_runs(page_examples.parse(page.path))  # Sybil runs the en page's code as its zh twin's

    zh, en = facts(ZH[name]), facts(EN[name])
    assert zh == en, f"docs/zh/{name} and docs/en/{name} differ in their {what}:\n  zh: {zh}\n  en: {en}"


@pytest.mark.parametrize("name", TWINS)
def test_twins_are_line_aligned(name):
    problems = twin_lines.misaligned(ZH[name], EN[name])
    assert not problems, "\n".join(problems)


def test_a_misaligned_line_is_named():
    zh = pages.read_page(pages.DOCS / "zh" / "t.md", "# 标题\n\n见 {glue:text}`a:d` 和 {claim}`c/x`。\n")
    en = pages.read_page(pages.DOCS / "en" / "t.md", "# Title\n\nSee {claim}`c/x` and {glue:text}`a:d`.\n")
    assert twin_lines.misaligned(zh, en) == []  # roles in another order: the same line
    en = pages.read_page(pages.DOCS / "en" / "t.md", "# Title\n\nSee {claim}`c/x`.\n\n")
    problems = twin_lines.misaligned(zh, en)
    assert "docs/en/t.md 4:" in problems[0] and "docs/zh/t.md:3 and docs/en/t.md:3" in problems[1], problems


def test_every_commit_since_the_base_edits_twin_lines_together():
    """History keeps the twins in step: since the recorded base, a commit that changed line N of a
    page changed line N of its twin, or its message waives that page (twin_lines.WAIVER)."""
    base = book_settings.PYPROJECT["tool"]["autograd-measured"]["twin-history-base"]
    unpaired = twin_lines.unpaired_edits(book_settings.ROOT, base)
    assert not unpaired, "\n".join(unpaired)


def test_an_unpaired_edit_is_named_with_page_and_line(tmp_path):
    def git(*args):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True, capture_output=True
        )

    def write(language, text, message):
        (tmp_path / "docs" / language).mkdir(parents=True, exist_ok=True)
        (tmp_path / "docs" / language / "p.md").write_text(text)
        git("add", "-A")
        git("commit", "-m", message)

    git("init", "-q")
    write("zh", "一\n二\n三\n", "zh")
    write("en", "one\ntwo\nthree\n", "en")
    git("tag", "base")
    write("zh", "一\n二！\n三\n", "Twin-waiver: docs/zh/p.md\n")
    assert twin_lines.unpaired_edits(tmp_path, "base") == []
    write("en", "one\ntwo\nthree!\n", "Punctuation")
    unpaired = twin_lines.unpaired_edits(tmp_path, "base")
    assert len(unpaired) == 1 and "docs/en/p.md at line 3" in unpaired[0] and "not docs/zh/p.md" in unpaired[0]


@pytest.mark.parametrize("page", ALL_PAGES, ids=lambda p: pages.relative(p.path))
def test_page_follows_the_rules(page):
    problems = [f"{pages.relative(page.path)}:{line}: {message}" for line, message in page.problems()]
    assert not problems, "\n".join(problems)


def test_every_snippet_is_loaded_by_a_page():
    loaded = {snippet for page in ALL_PAGES for snippet in [*page.snippets, *page.references]}
    files = {
        p
        for p in pages.SNIPPETS.rglob("*.py")
        if not any(p.is_relative_to(tool) for tool in book_settings.INSTALLED_FROM_SNIPPETS)
    }
    orphans = sorted(pages.relative(p) for p in files - loaded)
    assert not orphans, f"snippets that no page loads or offers for download: {orphans}"


# Where the tutorials this book grew from say something a run contradicts, the chapter teaches the
# measured truth in an "often said / measured" callout, with the same id in both languages.
OFTEN_SAID_BY_CHAPTER = {
    "graph-lifecycle.md": ["second-backward-always-fails"],
    "gradient-accumulation.md": ["forgetting-zero-grad", "micro-batches-equal-big-batch"],
    "leaf-tensors.md": ["no-grad-backward-raises"],
    "graph-memory.md": ["graph-bigger-than-parameters", "pack-hook-returns-tensor"],
    "retain-graph.md": ["total-loss-second-backward"],
    "no-grad-and-detach.md": ["frozen-parameters-decayed", "eval-without-no-grad-grows"],
    "in-place-operations.md": ["inplace-multiplication-safe"],
    "gradient-checking.md": ["finite-difference-truncation"],
    "custom-functions.md": ["ctx-attribute-is-equivalent", "once-differentiable-raises"],
    "hooks.md": ["backward-hook-weights"],
    "torch-func.md": ["vmap-makes-jacrev-cheap"],
    "accumulation-at-scale.md": ["autocast-keeps-gradients-float32", "tcp-init-is-local"],
}


@pytest.mark.parametrize("name", sorted(OFTEN_SAID_BY_CHAPTER))
@pytest.mark.parametrize("tree", pages.LANGUAGES)
def test_each_correction_of_the_sources_has_its_callout(tree, name):
    page = (ZH if tree == "zh" else EN).get(name)
    assert page is not None, f"docs/{tree}/{name} is missing"
    found = page.directive_arguments("often-said")
    missing = [i for i in OFTEN_SAID_BY_CHAPTER[name] if i not in found]
    assert not missing, f"docs/{tree}/{name} lacks the often-said callout(s) {missing}"


def test_the_page_model_finds_roles_labels_and_directives_where_they_stand():
    """One parse gives every fact with its line, inside nested directive bodies too, and never
    mistakes code (a fenced block, inline code) for a role."""
    text = (
        "(top)=\n# Title {glue:text}`a:.1f`\n\n::::{dropdown} Answers\n:open:\n\n"
        "1. {claim}`ch/check` and\n   {glue}`b`\n\n:::{often-said} some-id\nSaid.\n\nMeasured {glue:text}`c`.\n:::\n"
        "::::\n\n```python\nx = '{glue}`not_a_role`'\n```\n\n`{glue}`not_either`` {download}`get <../f.py>`\n"
    )
    page = pages.read_page(pages.DOCS / "en" / "model-test.md", text)
    assert page.labels == ["top"]
    assert [(r.name, r.content, r.line) for r in page.roles] == [
        ("glue:text", "a:.1f", 2),
        ("claim", "ch/check", 7),
        ("glue", "b", 8),
        ("glue:text", "c", 13),
        ("download", "get <../f.py>", 21),
    ]
    assert [(d.name, d.argument, d.line) for d in page.directives] == [
        ("dropdown", "Answers", 4),
        ("often-said", "some-id", 10),
    ]
    assert page.glue_refs == [("text", "a", ".1f"), ("", "b", ""), ("text", "c", "")]
    assert page.references == [(pages.DOCS / "f.py").resolve(), pages.SNIPPETS / "ch" / pages.CLAIMS_FILE]
