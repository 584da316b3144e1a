"""The book's callouts and the reading-time line, labelled in the page's language.

    :::{pitfall}                      a trap readers fall into
    :::{stop-here}                    the end of a chapter's first half
    :::{often-said} <id>              where the sources say one thing and the run shows another:
    First paragraph: the claim.       the id is the same in both languages (a test pairs them)
    The rest: what was measured.
    :::
    {reading-time}`estimate`          minutes, from the page's own prose and code

Tip and warning are Sphinx's own ``{tip}`` and ``{warning}``.
"""

from __future__ import annotations

import math
import re

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective, SphinxRole

from book_extensions import ENV_VERSION
from book_extensions import pages
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


class ReadingTime(SphinxRole):
    def run(self):
        page = pages.page_of(self.env)
        prose = "\n".join(words for _, words in page.prose)
        if self.env.config.language.startswith("zh"):
            units, per_minute = len(HAN.findall(prose)) + len(WORD.findall(prose)), CHARACTERS_PER_MINUTE
        else:
            units, per_minute = len(WORD.findall(prose)), WORDS_PER_MINUTE
        code = sum(1 for p in page.snippets if p.is_file()
                   for line in p.read_text(encoding="utf-8").splitlines() if line.strip())
        minutes = max(1, math.ceil(units / per_minute + code / CODE_LINES_PER_MINUTE))
        line = text(self.env, "reading-time").format(minutes=minutes, prose=units, code=code)
        return [nodes.inline(line, line, classes=["reading-time"])], []


def setup(app):
    app.add_directive("pitfall", Pitfall)
    app.add_directive("stop-here", StopHere)
    app.add_directive("often-said", OftenSaid)
    app.add_role("reading-time", ReadingTime())
    return {"parallel_read_safe": True, "parallel_write_safe": True,
            "env_version": ENV_VERSION}
