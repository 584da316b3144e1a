"""{claim}`<chapter>/<check>`: a sentence about torch names the check that proves it.

A check is a public function with asserts in snippets/<chapter>/claims.py (read, not imported);
tests/test_claims.py runs each on every supported torch and records it with a hash of its code and of
the private helpers it uses. The role renders a ✓ that opens the check's docstring, the torches whose
record passed this very code, and the code (_static/claims.js keeps the sentence in view). A claim
that names no check fails the build with page and line.

Sphinx: a role and a node with its own HTML visitor; ``rereads.watch`` re-reads a page with claims
when a record changes. Tests: tests/test_claims.py, tests/browser/test_browser.py.
"""

from __future__ import annotations

import ast
import hashlib
import html
import json
from functools import cache
from pathlib import Path

from docutils import nodes
from pygments import highlight
from pygments.formatters import HtmlFormatter
from sphinx.util import logging
from sphinx.util.docutils import SphinxRole

from book_extensions import ENV_VERSION
import book_settings
from book_extensions import pages
from book_extensions import rereads
from book_extensions.languages import text

logger = logging.getLogger(__name__)


class ClaimsFileError(ValueError):
    """A chapter's claims.py does not parse: "<file>:<line>: <why>"."""


@cache
def _checks(claims_file: Path, mtime: float) -> dict[str, str]:
    """{name: the function's source, after the source of the module's private helpers it uses}: the
    record's hash of a check changes when a helper it uses changes. Helpers are functions, classes
    (with their decorators) and values assigned at module level (`_ALIVE = []`); a value is shown
    with the comment lines right above it, which say what it is, since it has no docstring."""
    source = claims_file.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as error:  # the roles and the report say so, at their lines
        line = f":{error.lineno}" if getattr(error, "lineno", None) else ""
        raise ClaimsFileError(f"{pages.relative(claims_file)}{line}: {getattr(error, 'msg', error)}") from None
    lines = source.split("\n")  # as ast numbers lines (read_text turned every line ending into "\n")
    definitions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    definitions |= {
        target.id: node
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }

    def helpers(node, found):
        for name in (n.id for n in ast.walk(node) if isinstance(n, ast.Name)):
            if name.startswith("_") and name in definitions and name not in found:
                found.append(name)
                helpers(definitions[name], found)
        return found

    def shown(node) -> str:
        # A module-level decorator starts its line; else the node's own text, as ast.get_source_segment
        # gives it, its columns counting UTF-8 bytes.
        decorators = getattr(node, "decorator_list", [])
        first, column = (decorators[0].lineno, 0) if decorators else (node.lineno, node.col_offset)
        text = [line.encode() for line in lines[first - 1 : node.end_lineno]]
        text[-1] = text[-1][: node.end_col_offset]
        text[0] = text[0][column:]
        start = first - 1
        if isinstance(node, ast.Assign):
            while start > 0 and lines[start - 1].lstrip().startswith("#"):
                start -= 1
        return "\n".join(lines[start : first - 1] + [b"\n".join(text).decode()])

    return {
        name: "\n\n".join(shown(definitions[part]) for part in [*sorted(helpers(node, [])), name])
        for name, node in definitions.items()
        if isinstance(node, ast.FunctionDef) and not name.startswith("_")
    }


def checks_of(chapter: str) -> dict[str, str]:
    """{name: source} of the public functions in snippets/<chapter>/claims.py (read, not imported)."""
    path = pages.SNIPPETS / chapter / pages.CLAIMS_FILE
    return _checks(path, path.stat().st_mtime) if path.is_file() else {}


def all_checks() -> dict[str, str]:
    """{"<chapter>/<check>": source} of every chapter; ClaimsFileError if a claims.py does not parse."""
    checks, unparsable = checks_that_parse()
    if unparsable:
        raise unparsable[0]
    return checks


def checks_that_parse() -> tuple[dict[str, str], list[ClaimsFileError]]:
    """all_checks() of the chapters whose claims.py parses, and why each other one does not."""
    checks, unparsable = {}, []
    for path in sorted(pages.SNIPPETS.glob(f"*/{pages.CLAIMS_FILE}")):
        try:
            checks |= {f"{path.parent.name}/{name}": source for name, source in checks_of(path.parent.name).items()}
        except ClaimsFileError as error:
            unparsable.append(error)
    return checks, unparsable


def check_sentence(source: str, name: str) -> str:
    """The check's docstring: the sentence it proves."""
    function = next(node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef) and node.name == name)
    return " ".join((ast.get_docstring(function) or "").split())


def check_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def passed_on(check: str, source: str) -> list[str]:
    """The supported versions whose latest record says this code of the check passed."""
    found = []
    for torch in book_settings.TORCH_VERSIONS:
        path = book_settings.RECORDS / f"torch-{torch}.json"
        entry = json.loads(path.read_text(encoding="utf-8")).get("claims", {}).get(check, {}) if path.is_file() else {}
        if entry.get("status") == "passed" and entry.get("sha256") == check_hash(source):
            found.append(torch)
    return found


class claim_mark(nodes.Inline, nodes.Element):
    """Rendered whole by visit_claim_mark: a button and the popover it opens."""


def visit_claim_mark(self, node):
    """A button and its popover, inside the sentence's paragraph: phrasing content only (spans)."""
    target, escape = node["target"], html.escape
    lexer = self.highlighter.get_lexer(node["code"], "python", force=True)  # Sphinx's, as highlighting.py set it
    code = highlight(node["code"], lexer, HtmlFormatter(nowrap=True)).rstrip("\n")
    self.body.append(  # a word joiner, unbreakable in its span, keeps the mark on the line of the sentence's end
        f'<span class="claim-mark-joiner">\u2060<button type="button" class="claim-mark" popovertarget="{target}"'
        f' aria-label="{escape(node["label"])}" title="{escape(node["label"])}">✓</button></span>'
        f'<span class="claim-check" id="{target}" popover role="dialog" aria-labelledby="{target}-sentence">'
        f'<span class="claim-check-head"><span class="claim-check-sentence" id="{target}-sentence">'
        f"{escape(node['sentence'])}</span>"
        f'<button type="button" class="claim-check-close" popovertarget="{target}" popovertargetaction="hide"'
        f' aria-label="{escape(node["close"])}" title="{escape(node["close"])}">×</button></span>'
        f'<span class="claim-check-versions">{escape(node["versions"])}</span>'
        f'<span class="claim-check-id">{escape(node["title"])}</span>'
        f'<code class="claim-check-code highlight">{code}</code></span>'
    )
    raise nodes.SkipNode


class ClaimRole(SphinxRole):
    def run(self):
        check = self.text.strip()
        chapter = check.split("/")[0]
        # Also when the file is missing: Sphinx counts a missing dependency as changed, so the page is
        # read again once the file comes.
        self.env.note_dependency(str(pages.SNIPPETS / chapter / pages.CLAIMS_FILE))
        try:
            source = checks_of(chapter).get(check.partition("/")[2])
        except ClaimsFileError as error:
            logger.error(
                f"{{claim}}`{check}` cannot be checked: {error}",
                location=self.get_location(),
                type="claim",
                subtype="file",
            )
            return [], []
        if source is None:
            logger.error(
                f"{{claim}}`{check}` names no check: write `def {check.partition('/')[2] or '<check>'}():` "
                f"with asserts in snippets/{chapter}/{pages.CLAIMS_FILE}",
                location=self.get_location(),
                type="claim",
                subtype="missing",
            )
            return [], []
        say = lambda key, **kw: text(self.env, key).format(**kw)  # noqa: E731
        versions = passed_on(check, source)
        count = self.env.temp_data["claim_marks"] = self.env.temp_data.get("claim_marks", 0) + 1
        node = claim_mark(
            target=f"claim-{count}",
            label=say("claim-label"),
            title=say("claim-title", check=check),
            sentence=check_sentence(source, check.partition("/")[2]),
            close=say("claim-close"),
            versions=say("claim-passed", versions=", ".join(versions)) if versions else say("claim-not-run"),
            code=source,
        )
        return [node], []


def records_of(page: pages.Page) -> list[Path]:
    """A page with claims shows what each version's record says: re-read it when one comes or changes."""
    return (
        [book_settings.RECORDS / f"torch-{torch}.json" for torch in book_settings.TORCH_VERSIONS] if page.claims else []
    )


def setup(app):
    app.add_node(claim_mark, html=(visit_claim_mark, None))
    app.add_role("claim", ClaimRole())
    app.add_js_file("claims.js", loading_method="defer")
    rereads.watch(app, "claim-records", records_of)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
