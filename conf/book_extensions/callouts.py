"""The book's callouts and reading times, labelled in the page's language.

    :::{pitfall}              a trap readers fall into
    :::{stop-here}            the end of a chapter's first half
    :::{often-said} <id>      the sources' claim (first paragraph), then what was measured; the id is
                              the same in both languages, so that a test pairs them
    {reading-time}`estimate`  minutes, from the page's own prose and code
    :::{chapter-times}        on a landing page: each chapter its toctrees include, minutes, total

Tip and warning are Sphinx's own. Sphinx: directives and a role; ``doctree-resolved`` fills the
chapter table once every title is known. Tests: tests/test_pages.py (often-said ids),
tests/browser/test_browser.py (the chapter table and its total).
"""

from __future__ import annotations

import math
import re

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective, SphinxRole

import book_settings
from book_extensions import ENV_VERSION
from book_extensions import pages
from book_extensions.glossary import NOT_CHAPTERS
from book_extensions.languages import text

# Reading speeds for technical text: Chinese characters, English words, lines of code.
CHARACTERS_PER_MINUTE = 300
WORDS_PER_MINUTE = 180
CODE_LINES_PER_MINUTE = 25  # non-blank lines

HAN = re.compile(r"[\u4e00-\u9fff]")
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")


class Callout(SphinxDirective):
    has_content = True
    css_class = ""

    def run(self):
        node = nodes.admonition(classes=["admonition", self.css_class])
        node += nodes.title(text=text(self.env, self.name))
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


class Pitfall(Callout):
    css_class = "pitfall"


class StopHere(Callout):
    css_class = "stop-here"


class OftenSaid(SphinxDirective):
    required_arguments = 1  # an id, the same in both languages
    has_content = True
    option_spec = {"class": directives.class_option}

    def run(self):
        body = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, body)
        if len(body.children) < 2:
            raise self.error("often-said needs the claim (first paragraph) and what was measured (the rest)")
        claim, *measured = body.children
        node = nodes.admonition(classes=["admonition", "often-said"], ids=[f"often-said-{self.arguments[0]}"])
        node += nodes.title(text=text(self.env, "often-said"))
        node += nodes.container("", claim, classes=["claim"])
        node += nodes.rubric(text=text(self.env, "measured"))
        node += nodes.container("", *measured, classes=["measurement"])
        return [node]


def reading_time(page: pages.Page, language: str) -> tuple[int, int, int]:
    """(minutes, units of prose, lines of code) of a page: Chinese counts characters, English words."""
    prose = "\n".join(words for _, words in page.prose)
    if language.startswith("zh"):
        units, per_minute = len(HAN.findall(prose)) + len(WORD.findall(prose)), CHARACTERS_PER_MINUTE
    else:
        units, per_minute = len(WORD.findall(prose)), WORDS_PER_MINUTE
    code = sum(
        1 for p in page.snippets if p.is_file() for line in p.read_text(encoding="utf-8").splitlines() if line.strip()
    )
    return max(1, math.ceil(units / per_minute + code / CODE_LINES_PER_MINUTE)), units, code


class ReadingTime(SphinxRole):
    def run(self):
        minutes, units, code = reading_time(pages.page_of(self.env), self.env.config.language)
        line = text(self.env, "reading-time").format(minutes=minutes, prose=units, code=code)
        return [nodes.inline(line, line, classes=["reading-time"])], []


class chapter_times(nodes.General, nodes.Element):
    """Where the landing page's table of chapters goes, once every page's title is known."""


class ChapterTimes(SphinxDirective):
    def run(self):
        # The table quotes every chapter's reading time: read this page again when one changes.
        for page in pages.book_pages(book_settings.TREE_OF_SPHINX_LANGUAGE[self.env.config.language]).values():
            for path in [page.path, *page.snippets]:
                self.env.note_dependency(str(path))
        return [chapter_times()]


def fill_chapter_times(app, doctree, docname):
    """Each chapter the page's toctrees include (the appendix pages are no chapters), linked, with its
    reading time, and the total."""
    env, say = app.env, lambda key, **kw: text(app.env, key).format(**kw)
    for placeholder in list(doctree.findall(chapter_times)):
        rows, total = [], 0
        for number, chapter in enumerate(
            (d for d in env.toctree_includes.get(docname, []) if d not in NOT_CHAPTERS), start=1
        ):
            minutes = reading_time(pages.page_of(env, chapter), app.config.language)[0]
            total += minutes
            link = nodes.reference("", "", internal=True, refuri=app.builder.get_relative_uri(docname, chapter))
            link += env.titles[chapter].deepcopy().children
            rows.append([str(number), nodes.paragraph("", "", link), say("minutes", minutes=minutes)])
        rows.append(
            [
                "",
                nodes.strong(text=say("total")),
                nodes.strong(text=say("hours", hours=f"{total / 60:.1f}", minutes=total)),
            ]
        )
        placeholder.replace_self(
            table(["", say("col-chapter"), say("col-reading-time")], rows, ["chapter-times"], widths=(1, 10, 3))
        )


def table(header: list, rows: list[list], classes: list[str], widths: tuple[int, ...] = ()) -> nodes.table:
    """A docutils table; each cell a string, an inline node or a paragraph, each column `widths` wide (1 if none)."""
    grid = nodes.table(classes=classes)
    group = nodes.tgroup(cols=len(header))
    grid += group
    group.extend(nodes.colspec(colwidth=width) for width in widths or [1] * len(header))
    for part, lines in ((nodes.thead(), [header]), (nodes.tbody(), rows)):
        for cells in lines:
            row = nodes.row()
            for cell in cells:
                row += nodes.entry(
                    "",
                    cell
                    if isinstance(cell, nodes.paragraph)
                    else nodes.paragraph("", "", *([cell] if isinstance(cell, nodes.Node) else [nodes.Text(cell)])),
                )
            part += row
        group += part
    return grid


def setup(app):
    app.add_directive("pitfall", Pitfall)
    app.add_directive("stop-here", StopHere)
    app.add_directive("often-said", OftenSaid)
    app.add_role("reading-time", ReadingTime())
    app.add_node(chapter_times)
    app.add_directive("chapter-times", ChapterTimes)
    app.connect("doctree-resolved", fill_chapter_times)

    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
