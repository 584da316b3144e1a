"""Printed output keeps its columns; a message line still wraps.

myst-nb highlights every printed output with the lexer ``nb_render_text_lexer`` names (conf.py
names ``book-output``), and ``torch_differences`` its diffs with ``book-output-diff``. A line keeps
its layout when it has a run of two or more spaces after its first character (a table's columns;
not after a full stop, where a message puts two spaces between sentences),
starts with four spaces (aligned under the line above) or opens a matrix (``tensor([[``): the
output scrolls sideways instead. Any other line is free text (an error message, a warning); its
token's class ends in ``-Message``, which book.css lets wrap. The text itself is never changed.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups
from pygments.token import Generic, Text

from book_extensions import ENV_VERSION

LAYOUT = r"(?: {4}|[ \t]*tensor\(\[\[|[ \t]*\S(?:[^\n]*?[^.\s])? {2,}\S)[^\n]*"
MESSAGE = r"[^\n]+"
# A diff line's sign, the token of its sign and of a kept line, and the token of a message line.
SIGNS = ((r"-", Generic.Deleted, Generic.Deleted.Message), (r"\+", Generic.Inserted, Generic.Inserted.Message),
         (r" ", Text, Generic.Message))


class OutputLexer(RegexLexer):
    name = "Book output"
    aliases = ["book-output"]
    tokens = {"root": [(LAYOUT, Text), (MESSAGE, Generic.Message), (r"\n", Text)]}


class OutputDiffLexer(RegexLexer):
    """A diff of two outputs: a sign, then a line as OutputLexer reads it; '…' between hunks."""

    name = "Book output diff"
    aliases = ["book-output-diff"]
    tokens = {
        "root": [
            *((rf"({sign})({LAYOUT})", bygroups(kept, kept)) for sign, kept, _ in SIGNS),
            *((rf"({sign})({MESSAGE})", bygroups(kept, message)) for sign, kept, message in SIGNS),
            (r"[^\n]*\n", Text),
        ]
    }


def setup(app):
    app.add_lexer("book-output", OutputLexer)
    app.add_lexer("book-output-diff", OutputDiffLexer)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
