"""Printed output keeps its columns; a message line wraps. The text itself is never changed.

``book-output`` lexes every printed output (conf.py's ``nb_render_text_lexer``), ``book-output-diff``
the diffs of ``torch_differences``. A line keeps its layout (the output scrolls sideways) when it has
a run of two or more spaces after its first character (columns; not after a full stop, where a
message separates sentences), starts with four spaces, or opens a matrix (``tensor([[``). Any other
line is a message: its token's class ends in ``-Message``, which book.css lets wrap.

Sphinx: ``add_lexer``. Tests: tests/test_output_lexer.py.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups
from pygments.token import Generic, Text

from book_extensions import ENV_VERSION

LAYOUT = r"(?: {4}|[ \t]*tensor\(\[\[|[ \t]*\S(?:[^\n]*?[^.\s])? {2,}\S)[^\n]*"
MESSAGE = r"[^\n]+"
# A diff line's sign, the token of its sign and of a kept line, and the token of a message line.
SIGNS = (
    (r"-", Generic.Deleted, Generic.Deleted.Message),
    (r"\+", Generic.Inserted, Generic.Inserted.Message),
    (r" ", Text, Generic.Message),
)


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
