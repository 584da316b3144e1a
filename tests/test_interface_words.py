"""The book's interface words (book_extensions/languages.py): every msgid the code under conf/ passes
to the book's translator, found by reading the code, is a literal with a translation in book.po that
is not fuzzy and has the same {placeholders}; book.po holds no other. A missing entry would not fail
the build: the Chinese page would show the English text."""

import ast
import re

import pytest
from babel.messages.pofile import read_po

import book_settings

pytestmark = pytest.mark.torch_independent  # see pyproject.toml's markers

CATALOG = book_settings.CONF / "locales" / "zh_CN" / "LC_MESSAGES" / "book.po"
PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def _is_book_call(node, function: str) -> bool:
    """get_translation("book") or get_translator("book")."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function
            and [ast.literal_eval(arg) for arg in node.args] == ["book"])


def translator_calls(tree: ast.Module):
    """(call, its msgid arguments): of `_` bound to get_translation("book") or imported from
    book_extensions.languages, of its in_language, and of get_translator("book").ngettext."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "book_extensions.languages":
            names |= {alias.asname or alias.name for alias in node.names if alias.name in ("_", "in_language")}
        elif isinstance(node, ast.Assign) and _is_book_call(node.value, "get_translation"):
            names |= {target.id for target in node.targets}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names:
            yield node, node.args[:1]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "ngettext"
              and _is_book_call(node.func.value, "get_translator")):
            yield node, node.args[:2]


def used_messages() -> tuple[dict[tuple, str], list[str]]:
    """{(msgid,) or (msgid, msgid_plural): where}, and the calls whose msgid is no literal."""
    used, not_literal = {}, []
    for path in sorted(book_settings.CONF.rglob("*.py")):
        for call, args in translator_calls(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(book_settings.ROOT)}:{call.lineno}"
            if not args or not all(isinstance(arg, ast.Constant) and isinstance(arg.value, str) for arg in args):
                not_literal.append(f"{where}: the msgid is not a literal string, so no test can find it")
            else:
                used.setdefault(tuple(arg.value for arg in args), where)
    return used, not_literal


def test_every_word_the_code_shows_is_translated_and_the_catalog_holds_no_other():
    used, problems = used_messages()
    assert len(used) > 50, f"found only {len(used)} msgids: does the code still call the book's translator as " \
                           f"translator_calls reads it?"
    with CATALOG.open("rb") as file:
        entries = {message.id if isinstance(message.id, str) else message.id[0]: message
                   for message in read_po(file) if message.id}
    for ids, where in used.items():
        entry = entries.get(ids[0])
        if entry is None:
            problems.append(f"{where}: {ids[0]!r} has no entry in {CATALOG.name}")
            continue
        translations = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        if (entry.id if isinstance(entry.id, tuple) else (entry.id,)) != ids:
            problems.append(f"{where}: {ids[0]!r}: the code passes {ids}, {CATALOG.name} has {entry.id}")
        elif not all(translations):
            problems.append(f"{CATALOG.name}:{entry.lineno}: {ids[0]!r} is not translated")
        elif entry.fuzzy:
            problems.append(f"{CATALOG.name}:{entry.lineno}: {ids[0]!r} is fuzzy (compiled catalogs leave it out)")
        for text in [*ids[1:], *translations]:
            if set(PLACEHOLDER.findall(text)) != set(PLACEHOLDER.findall(ids[0])):
                problems.append(f"{CATALOG.name}:{entry.lineno}: {text!r} has the placeholders "
                                f"{sorted(set(PLACEHOLDER.findall(text)))}, {ids[0]!r} has "
                                f"{sorted(set(PLACEHOLDER.findall(ids[0])))}")
    problems += [f"{CATALOG.name}:{entries[msgid].lineno}: {msgid!r} is not used by the code"
                 for msgid in entries.keys() - {ids[0] for ids in used}]
    assert not problems, "\n".join(problems)
