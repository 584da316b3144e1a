"""Printed output keeps its columns and a message line wraps (book_extensions.outputs): lines chosen for
each rule, read as a page's output and as a line of a diff of two outputs; the text is never changed."""

import pytest
from pygments.token import Generic, Text

from book_extensions.outputs import OutputDiffLexer, OutputLexer

pytestmark = pytest.mark.torch_independent  # see pyproject.toml's markers

KEEP_LAYOUT = [
    "step  loss    grad norm",  # columns: a run of two or more spaces after the first character
    "    x.grad is None",  # four spaces
    "tensor([[1., 2.],",  # a matrix opens
    "  tensor([[0.5000]])",
]
WRAP = [
    "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn",
    "Trying to backward through the graph a second time.  Specify retain_graph=True.",  # after a full stop
    "  indented by two, no columns",
]


def kinds(lexer, text: str) -> list[tuple[object, str]]:
    tokens = [(kind, value) for kind, value in lexer.get_tokens(text + "\n") if value != "\n"]
    assert "".join(value for _, value in tokens) == text, "the lexer changed the text"
    return tokens


@pytest.mark.parametrize("line", KEEP_LAYOUT)
def test_a_line_with_columns_keeps_its_layout(line):
    assert kinds(OutputLexer(), line) == [(Text, line)]
    assert kinds(OutputDiffLexer(), "-" + line) == [(Generic.Deleted, "-"), (Generic.Deleted, line)]
    assert kinds(OutputDiffLexer(), "+" + line) == [(Generic.Inserted, "+"), (Generic.Inserted, line)]
    assert kinds(OutputDiffLexer(), " " + line) == [(Text, " "), (Text, line)]


@pytest.mark.parametrize("line", WRAP)
def test_a_message_line_wraps(line):
    assert kinds(OutputLexer(), line) == [(Generic.Message, line)]
    assert kinds(OutputDiffLexer(), "-" + line) == [(Generic.Deleted, "-"), (Generic.Deleted.Message, line)]
    assert kinds(OutputDiffLexer(), "+" + line) == [(Generic.Inserted, "+"), (Generic.Inserted.Message, line)]
    assert kinds(OutputDiffLexer(), " " + line) == [(Text, " "), (Generic.Message, line)]
