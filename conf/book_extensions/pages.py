"""What a book page holds: notebook front matter, code cells, labels and glue references.

The Sphinx build (``snippet_cells``) and the tests read pages through this one module, so
that both agree on what a page contains. Code cells are found the way myst-nb finds them:
top-level ``{code-cell}`` fences of the Markdown token stream.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.directives import parse_directive_text
from myst_parser.parsers.mdit import create_md_parser

from book_settings import DOCS, LANGUAGES, ROOT, SNIPPETS  # noqa: F401  (the page model's places)

CELL_LANGUAGE = "ipython3"  # `{code-cell} python` would collide with Sybil's Python parser
RAISES_TAG = "raises-exception"

LABEL = re.compile(r"^\(([^()\s]+)\)=[ \t]*$", re.MULTILINE)
# {glue}`key`, {glue:text}`key:.1f`, and the directive forms ```{glue:figure} key
GLUE_ROLE = re.compile(r"\{glue(?::(\w+))?\}`([^`]+)`")
VERSIONS_ROLE = re.compile(r"\{torch-versions\}`([^`]+)`")  # which supported torch prints a text
CLAIM_ROLE = re.compile(r"\{claim\}`([^`]+)`")  # the check that proves the sentence before it
CLAIMS_FILE = "claims.py"  # snippets/<chapter>/claims.py: the chapter's checks, one function each
# Files a page offers without running them: {download}`starter <../../snippets/…>` and literalinclude.
DOWNLOAD = re.compile(r"\{download\}`(?:[^`<]*<([^`>]+)>|([^`<>]+))`")
LITERALINCLUDE = re.compile(r"^[ \t]*(?:`{3,}|:{3,})\{literalinclude\}[ \t]+(\S+)", re.MULTILINE)
GLUE_DIRECTIVE = re.compile(r"^[ \t]*(?:`{3,}|:{3,})\{glue(?::\w+)?\}[ \t]+(\S+)", re.MULTILINE)


class _AnyOptions:
    """Stands in for the directive class: myst-nb accepts any option on a code cell."""

    required_arguments = 0
    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = {"options": True}  # any truthy spec: parse options, but do not validate them


@dataclass(frozen=True)
class CodeCell:
    page: Path
    line: int  # 1-based line of the opening fence in the page
    end_line: int  # 1-based line of the closing fence
    language: str
    options: dict
    body: str

    @property
    def load(self) -> str | None:
        return self.options.get("load")

    @property
    def tags(self) -> list[str]:
        tags = self.options.get("tags") or []
        return yaml.safe_load(tags) if isinstance(tags, str) else list(tags)

    @property
    def raises(self) -> bool:
        return RAISES_TAG in self.tags

    @property
    def snippet(self) -> Path | None:
        """The loaded file, resolved like myst-nb does: relative to the page."""
        return (self.page.parent / self.load).resolve() if self.load else None

    @property
    def where(self) -> str:
        return f"{relative(self.page)}:{self.line}"


@dataclass
class Page:
    path: Path
    text: str
    front_matter: dict = field(default_factory=dict)
    code_cells: list[CodeCell] = field(default_factory=list)

    @property
    def root(self) -> Path:
        """The checkout the page belongs to: the folder above its docs/."""
        return next((p.parent for p in self.path.parents if p.name == "docs"), ROOT)

    @property
    def is_notebook(self) -> bool:
        """myst-nb executes a Markdown page only when its front matter says it is a notebook."""
        fm = self.front_matter
        jupytext = (fm.get("jupytext") or {}).get("text_representation") or {}
        return "kernelspec" in fm and (
            fm.get("file_format") == "mystnb" or jupytext.get("format_name") == "myst"
        )

    @property
    def labels(self) -> list[str]:
        return LABEL.findall(self.text)

    @property
    def glue_refs(self) -> list[tuple[str, str, str]]:
        """(role, key, format) of every glue role in the prose: ("text", "retain_second", ".1f")."""
        return [(role, *(ref.rsplit(":", 1) if ":" in ref else (ref, "")))
                for role, ref in GLUE_ROLE.findall(self.text)]

    @property
    def version_claims(self) -> list[tuple[int, str]]:
        """(line, "<chapter>/<idea>.py|<text>") of every {torch-versions} role in the prose."""
        return [(self.text.count("\n", 0, m.start()) + 1, m.group(1)) for m in VERSIONS_ROLE.finditer(self.text)]

    @property
    def claims(self) -> list[tuple[int, str]]:
        """(line, "<chapter>/<check>") of every {claim} role in the prose."""
        return [(self.text.count("\n", 0, m.start()) + 1, m.group(1)) for m in CLAIM_ROLE.finditer(self.text)]

    @property
    def glue_keys(self) -> list[str]:
        return [key for _, key, _ in self.glue_refs] + GLUE_DIRECTIVE.findall(self.text)

    @property
    def snippets(self) -> list[Path]:
        return [cell.snippet for cell in self.code_cells if cell.snippet]

    @property
    def references(self) -> list[Path]:
        """Files the page links for download or shows without running (exercises), and the
        chapters' claims.py whose checks it names."""
        targets = [a or b for a, b in DOWNLOAD.findall(self.text)] + LITERALINCLUDE.findall(self.text)
        claimed = sorted({SNIPPETS / claim.split("/")[0] / CLAIMS_FILE for _, claim in self.claims})
        return [(self.path.parent / target.strip()).resolve() for target in targets] + claimed

    def problems(self) -> list[tuple[int, str]]:
        """(line, message) for every rule of the book this page breaks."""
        found = []
        if self.code_cells and not self.is_notebook:
            found.append((1, f"{len(self.code_cells)} code cell(s) but no notebook front matter, so "
                             "myst-nb would not run them: start the page with\n---\nfile_format: mystnb\n"
                             "kernelspec:\n  name: python3\n---"))
        for cell in self.code_cells:
            if cell.language != CELL_LANGUAGE:
                found.append((cell.line, f"write `{{code-cell}} {CELL_LANGUAGE}`, not "
                                         f"`{{code-cell}} {cell.language}`"))
            if cell.body.strip():
                found.append((cell.line, "inline code in a code cell: move it to a file under "
                                         "snippets/ and `:load:` it, with an empty cell body"))
            if not cell.load:
                found.append((cell.line, "code cell without `:load: ../../snippets/<chapter>/<idea>.py`"))
            elif not cell.snippet.is_file():
                found.append((cell.line, f"`:load: {cell.load}` names a missing file: {relative(cell.snippet)}"))
            elif not cell.snippet.is_relative_to(self.root / "snippets"):
                found.append((cell.line, f"`:load: {cell.load}` is outside snippets/"))
        return found


def snippet_hash(snippet: Path) -> str:
    """Identifies a snippet's content: a test record of another content is stale."""
    return hashlib.sha256(Path(snippet).read_bytes()).hexdigest()[:16]


def relative(path: Path) -> str:
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


@cache
def _markdown_parser():
    return create_md_parser(MdParserConfig(enable_extensions={"colon_fence"}), RendererHTML)


def read_page(path: Path, text: str | None = None) -> Page:
    path = Path(path).resolve()
    text = path.read_text(encoding="utf-8") if text is None else text
    page = Page(path, text)
    for token in _markdown_parser().parse(text):
        if token.type == "front_matter":
            page.front_matter = yaml.safe_load(token.content) or {}
        elif token.type == "fence" and token.level == 0 and token.info.startswith("{code-cell}"):
            parsed = parse_directive_text(_AnyOptions, "", token.content, validate_options=False)
            page.code_cells.append(CodeCell(
                page=path,
                line=token.map[0] + 1,
                end_line=token.map[1],
                language=token.info.removeprefix("{code-cell}").strip(),
                options=parsed.options,
                body="\n".join(parsed.body),
            ))
    return page


def missing_twins(docs: Path = DOCS) -> list[tuple[Path, Path]]:
    """(missing page, its existing twin) for every page that exists in one language tree only."""
    trees = {language: {p.relative_to(docs / language) for p in (docs / language).rglob("*.md")}
             for language in LANGUAGES}
    return [(docs / language / name, docs / other / name)
            for language, names in trees.items() for other, other_names in trees.items()
            for name in sorted(other_names - names)]


def book_pages(language: str) -> dict[str, Page]:
    """The pages of one language, keyed by their path inside the language's tree."""
    tree = DOCS / language
    return {str(p.relative_to(tree)): read_page(p) for p in sorted(tree.rglob("*.md"))}
