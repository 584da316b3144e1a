"""The bilingual glossary and the zh search dictionary, both from docs/glossary.toml.

- ``{book-glossary}`` renders every term in the page's language with its twin in the other, the
  variants the book avoids, and links to the chapters that use it, counted in their text (so the
  links follow the prose).
- A zh build indexes with a jieba user dictionary of the glossary's terms, in place of Sphinx's
  default (jieba's own dictionary, loaded a second time), so whole terms such as 叶子张量 are
  indexed as well as their parts.

Sphinx: a directive; ``config-inited`` writes the dictionary. Tests: tests/test_glossary.py,
tests/test_build_errors.py and tests/test_fixture_projects.py (a broken glossary is reported, the
build goes on), tests/browser/test_browser.py (searching each term finds a chapter that uses it).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.domains.std import make_glossary_term
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from book_extensions import ENV_VERSION
from book_extensions import pages
from book_extensions.languages import text, tree_and_other

GLOSSARY = pages.DOCS / "glossary.toml"
NOT_CHAPTERS = {"index", "glossary", "verification"}
TERM_HEADER = re.compile(r"\s*\[\[\s*term\s*\]\]\s*(#.*)?$")
# An entry's keys: how the page writes the term (code, or zh and en), its definitions, and the
# other spellings each language may use (*_also) or rules out (*_avoid).
WORDS, DEFINITIONS, LISTS = {"code", "zh", "en"}, {"zh_def", "en_def"}, {"zh_also", "en_also", "zh_avoid", "en_avoid"}
logger = logging.getLogger(__name__)


class GlossaryError(ValueError):
    """docs/glossary.toml cannot be read as the glossary: where (the file, and its line when known) and why."""

    def __init__(self, message: str, line: int | None = None):
        self.where = pages.relative(GLOSSARY) + (f":{line}" if line else "")
        self.message, self.line = message, line
        super().__init__(f"{self.where}: {message}")

    def report(self) -> None:
        """As an error of the build, which goes on (and fails at its end under -W, which the book's
        builds pass: build_runs.sphinx_options). Sphinx reads a location without a line as a page's
        name, so a file without its line is named in the message."""
        if self.line:
            logger.error(self.message, location=self.where)
        else:
            logger.error(f"{self.where}: {self.message}")


def load_terms() -> list[dict]:
    """The [[term]] entries; each has `code` or `zh` and `en`, and both definitions."""
    try:
        raw = GLOSSARY.read_bytes()
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except OSError as error:
        raise GlossaryError(f"cannot be read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise GlossaryError(f"is not UTF-8: {error.reason}", raw[: error.start].count(b"\n") + 1) from None
    except tomllib.TOMLDecodeError as error:  # "… (at line 3, column 16)" or "… (at end of document)"
        raise GlossaryError(str(error), _decode_error_line(str(error), text)) from None
    lines = text.split("\n")  # as TOML counts them
    if stray := sorted(set(data) - {"term"}):  # a misspelt [[term]] would drop its entry
        key = re.escape(stray[0])
        header = re.compile(rf"\s*(\[\[?\s*{key}\s*[\].]|{key}\s*[.=])")  # its table's header, or the key set
        where = next((number for number, line in enumerate(lines, 1) if header.match(line)), None)
        raise GlossaryError(f"{', '.join(stray)}: the glossary holds only [[term]] entries", where)
    terms = data.get("term")
    if not isinstance(terms, list) or not terms:
        raise GlossaryError("no [[term]] entries")
    # Where each entry starts, as it is mostly written; else the entry is named by its number.
    starts = [number for number, line in enumerate(lines, 1) if TERM_HEADER.match(line)]
    for number, term in enumerate(terms):
        line, which = (
            (starts[number], "the [[term]] here") if len(starts) == len(terms) else (None, f"[[term]] {number + 1}")
        )
        if not isinstance(term, dict):
            raise GlossaryError("`term` must be written as [[term]] tables")
        needed = ["zh_def", "en_def"] + ([] if "code" in term else ["zh", "en"])
        if missing := [key for key in needed if key not in term]:
            raise GlossaryError(f"{which} has no {', '.join(missing)}", line)
        if unknown := sorted(set(term) - WORDS - DEFINITIONS - LISTS):
            raise GlossaryError(f"{which}: unknown key {', '.join(unknown)}", line)
        if "code" in term and (unused := sorted(set(term) & {"zh", "en", "zh_also", "en_also"})):
            raise GlossaryError(
                f"{which}: a code term is written only as its code; {', '.join(unused)} would be unused", line
            )
        mistyped = [
            key
            for key, value in term.items()
            if not (
                isinstance(value, list) and all(_is_word(item) for item in value)
                if key in LISTS
                else _is_word(value) or (key in DEFINITIONS and isinstance(value, str) and value.strip())
            )
        ]
        if mistyped:
            raise GlossaryError(
                f"{which}: {', '.join(mistyped)} must be a list of words (the *_also and *_avoid keys), "
                "a word (code, zh, en) or a text (the definitions); a word is not empty and has no "
                "space at either end",
                line,
            )
    return terms


def _is_word(value) -> bool:
    return isinstance(value, str) and value != "" and value == value.strip()


def _decode_error_line(message: str, text: str) -> int:
    """The line TOML's message names; at the end of the file, where a multi-line string left open
    opens (its delimiter found an odd number of times: the usual cause), else the last line."""
    if at := re.search(r"\(at line (\d+)", message):
        return int(at[1])
    for delimiter in ('"""', "'''"):
        if text.count(delimiter) % 2:
            return text.count("\n", 0, text.rfind(delimiter)) + 1
    return len(text.rstrip("\r\n").split("\n"))


def spellings(term: dict, tree: str) -> list[str]:
    """How a page in this tree may write the term."""
    if "code" in term:
        return [term["code"]]
    return [term[tree], *term.get(f"{tree}_also", [])]


def count_uses(text_: str, words: list[str], tree: str) -> int:
    """How often the words occur as words: in English between non-word characters; in Chinese,
    which has no spaces, anywhere, except that a Latin word must not be part of a longer one
    ("loss" is not in "glossary")."""
    flags = re.IGNORECASE if tree == "en" else 0

    def pattern(word):
        if tree == "en":
            return rf"(?<![\w-]){re.escape(word)}(?![\w-])"
        if word.isascii():
            return rf"(?<![A-Za-z0-9_-]){re.escape(word)}(?![A-Za-z0-9_-])"
        return re.escape(word)

    return sum(len(re.findall(pattern(w), text_, flags)) for w in words)


class BookGlossary(SphinxDirective):
    has_content = False

    def run(self):
        tree, other = tree_and_other(self.config.language)
        chapters = {}
        for name, page in pages.book_pages(tree).items():
            docname = name.removesuffix(".md")
            if docname not in NOT_CHAPTERS:
                chapters[docname] = page.text
                self.env.note_dependency(str(page.path))  # uses change as the pages change
        self.env.note_dependency(str(GLOSSARY))
        glossary = addnodes.glossary(sorted=False)
        definitions = nodes.definition_list(classes=["glossary", "book-glossary"])
        glossary += definitions
        try:
            terms = load_terms()
        except GlossaryError as error:
            error.report()
            self.env.note_reread()  # read again by the next build, which reports it again
            return []
        for term in terms:
            title = (
                [nodes.literal(text=term["code"])]
                if "code" in term
                else [nodes.Text(term[tree]), nodes.inline(text=f" · {term[other]}", classes=["glossary-twin"])]
            )
            term_node = make_glossary_term(
                self.env, title, None, self.env.docname, self.lineno, None, self.state.document
            )
            # No index entry: search would rank the glossary above the chapter that teaches the term.
            for entry in list(term_node.findall(addnodes.index)):
                entry.parent.remove(entry)
            body = nodes.definition()
            self.state.nested_parse(self._lines(term[f"{tree}_def"]), self.content_offset, body)
            uses = sorted(((count_uses(t, spellings(term, tree), tree), d) for d, t in chapters.items()), reverse=True)
            links = nodes.paragraph(classes=["glossary-uses"])
            links += nodes.strong(text=text(self.env, "glossary-used-in"))
            for i, (count, docname) in enumerate(u for u in uses if u[0]):
                links += nodes.Text(" · " if i else " ")
                ref = addnodes.pending_xref(
                    "",
                    refdomain="std",
                    reftype="doc",
                    reftarget=f"/{docname}",
                    refexplicit=False,
                    refdoc=self.env.docname,
                )
                ref += nodes.inline(text=docname)
                links += ref
            if not any(count for count, _ in uses):
                links += nodes.Text(" —")
            body += links
            if term.get(f"{tree}_avoid"):
                avoid = nodes.paragraph(classes=["glossary-avoid"])
                avoid += nodes.strong(text=text(self.env, "glossary-avoid"))
                avoid += nodes.Text(
                    " " + "、".join(term[f"{tree}_avoid"]) if tree == "zh" else " " + ", ".join(term[f"{tree}_avoid"])
                )
                body += avoid
            definitions += nodes.definition_list_item("", term_node, body)
        return [glossary]

    def _lines(self, source: str):
        from docutils.statemachine import StringList

        return StringList([source], source=self.env.doc2path(self.env.docname))


def write_search_dictionary(app, config):
    """A jieba user dictionary of the glossary's Chinese terms, for the zh search index."""
    if not config.language.startswith("zh"):
        return
    try:
        terms = load_terms()
    except GlossaryError as error:
        error.report()
        return
    words = sorted(
        {w for term in terms if "code" not in term for w in spellings(term, "zh") if re.search(r"[\u4e00-\u9fff]", w)}
    )
    path = Path(app.outdir).parent / "jieba-user-dictionary.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{w} 100000 n\n" for w in words), encoding="utf-8")
    config.html_search_options = {**config.html_search_options, "dict": str(path)}


def setup(app):
    app.add_directive("book-glossary", BookGlossary)
    app.connect("config-inited", write_search_dictionary)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
