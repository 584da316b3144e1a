"""What a book page holds, from one parse of its Markdown: front matter, code cells, labels,
roles and directives, each with its line.

The Sphinx build and the tests read pages through this one module, so that both agree on what a
page contains. The page is parsed once, by myst-parser's own markdown-it parser (the one
myst-nb uses), and everything is taken from its tokens: top-level ``{code-cell}`` fences are the
code cells, ``(label)=`` targets the labels, ``{name}`content``` inline tokens the roles, and
directive fences the directives, whose Markdown bodies are parsed the same way. No regular
expression looks at the Markdown again. In the build, ``page_of(env, docname)`` keeps each
page's model on the Sphinx environment.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import SimpleNamespace

import yaml
from markdown_it.renderer import RendererHTML
from myst_parser.config.main import MdParserConfig
from myst_parser.parsers.directives import parse_directive_text
from myst_parser.parsers.mdit import create_md_parser
from sphinx.environment.collectors import EnvironmentCollector

from book_settings import DOCS, LANGUAGES, MYST_EXTENSIONS, ROOT, SNIPPETS  # noqa: F401  (the page model's places)

CELL_LANGUAGE = "ipython3"  # `{code-cell} python` would collide with Sybil's Python parser
RAISES_TAG = "raises-exception"
CLAIMS_FILE = "claims.py"  # snippets/<chapter>/claims.py: the chapter's checks, one function each
# Directives whose body is code or a list, not Markdown: their bodies hold no roles to find.
LITERAL_BODIES = {"code-cell", "code-block", "code", "sourcecode", "literalinclude", "toctree", "math", "raw"}


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
    def loads_a_snippet(self) -> bool:
        """Its `:load:` points into the checkout's snippets/ (the page rules report any other place)."""
        return self.snippet is not None and in_snippets(self.snippet, checkout_root(self.page))

    @property
    def where(self) -> str:
        return f"{relative(self.page)}:{self.line}"


@dataclass(frozen=True)
class Role:
    """{name}`content` in the prose, e.g. Role("glue:text", "retain_second:.1f", 42)."""

    name: str
    content: str
    line: int


@dataclass(frozen=True)
class Directive:
    """A fenced directive other than a code cell: ```{name} argument (or :::{name} argument)."""

    name: str
    argument: str
    line: int
    options: dict


@dataclass
class Page:
    path: Path
    text: str
    front_matter: dict = field(default_factory=dict)
    code_cells: list[CodeCell] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    roles: list[Role] = field(default_factory=list)
    directives: list[Directive] = field(default_factory=list)
    prose: list[tuple[int, str]] = field(default_factory=list)  # (line, words): no code, roles or markup
    front_matter_error: tuple[int, str] | None = None  # (line, YAML's message) when the front matter is not YAML

    @property
    def root(self) -> Path:
        return checkout_root(self.path)

    @property
    def is_notebook(self) -> bool:
        """myst-nb executes a Markdown page only when its front matter says it is a notebook."""
        fm = self.front_matter
        jupytext = (fm.get("jupytext") or {}).get("text_representation") or {}
        return "kernelspec" in fm and (fm.get("file_format") == "mystnb" or jupytext.get("format_name") == "myst")

    def roles_named(self, name: str) -> list[Role]:
        return [role for role in self.roles if role.name == name]

    def directive_arguments(self, name: str) -> list[str]:
        return [d.argument for d in self.directives if d.name == name]

    @property
    def glue_refs(self) -> list[tuple[str, str, str]]:
        """(role, key, format) of every glue role in the prose: ("text", "retain_second", ".1f")."""
        return [
            (role.name.partition(":")[2], *(role.content.rsplit(":", 1) if ":" in role.content else (role.content, "")))
            for role in self.roles
            if role.name == "glue" or role.name.startswith("glue:")
        ]

    @property
    def version_claims(self) -> list[tuple[int, str]]:
        """(line, "<chapter>/<idea>.py|<text>") of every {torch-versions} role in the prose."""
        return [(role.line, role.content) for role in self.roles_named("torch-versions")]

    @property
    def claims(self) -> list[tuple[int, str]]:
        """(line, "<chapter>/<check>") of every {claim} role in the prose."""
        return [(role.line, role.content) for role in self.roles_named("claim")]

    @property
    def glue_keys(self) -> list[str]:
        return [key for _, key, _ in self.glue_refs] + [
            d.argument for d in self.directives if d.name == "glue" or d.name.startswith("glue:")
        ]

    @property
    def snippets(self) -> list[Path]:
        """The files the page's cells load from snippets/ (whether they exist or not)."""
        return [cell.snippet for cell in self.code_cells if cell.loads_a_snippet]

    @property
    def references(self) -> list[Path]:
        """Files the page links for download or shows without running (exercises), and the
        chapters' claims.py whose checks it names."""
        # {download}`title <target>` or {download}`target`
        targets = [role.content.rpartition("<")[2].rstrip(">") for role in self.roles_named("download")]
        targets += self.directive_arguments("literalinclude")
        claimed = sorted({SNIPPETS / claim.split("/")[0] / CLAIMS_FILE for _, claim in self.claims})
        # {exercise-notebook} <chapter>/<name> offers the starter, snippets/<chapter>/exercise-<name>.py
        starters = [
            SNIPPETS / chapter / f"exercise-{name}.py"
            for chapter, _, name in (
                argument.strip().partition("/") for argument in self.directive_arguments("exercise-notebook")
            )
        ]
        return [(self.path.parent / target.strip()).resolve() for target in targets] + claimed + starters

    def problems(self) -> list[tuple[int, str]]:
        """(line, message) for every rule of the book this page breaks."""
        found = [self.front_matter_error] if self.front_matter_error else []
        if self.code_cells and not self.is_notebook and not self.front_matter_error:
            found.append(
                (
                    1,
                    f"{len(self.code_cells)} code cell(s) but no notebook front matter, so "
                    "myst-nb would not run them: start the page with\n---\nfile_format: mystnb\n"
                    "kernelspec:\n  name: python3\n---",
                )
            )
        for cell in self.code_cells:
            if cell.language != CELL_LANGUAGE:
                found.append((cell.line, f"write `{{code-cell}} {CELL_LANGUAGE}`, not `{{code-cell}} {cell.language}`"))
            if cell.body.strip():
                found.append(
                    (
                        cell.line,
                        "inline code in a code cell: move it to a file under "
                        "snippets/ and `:load:` it, with an empty cell body",
                    )
                )
            if not cell.load:
                found.append((cell.line, "code cell without `:load: ../../snippets/<chapter>/<idea>.py`"))
            elif cell.snippet.is_dir():
                found.append((cell.line, f"`:load: {cell.load}` names a folder: name the snippet's file in it"))
            elif not cell.snippet.is_file():
                found.append((cell.line, f"`:load: {cell.load}` names a missing file: {relative(cell.snippet)}"))
            elif not cell.loads_a_snippet:
                found.append((cell.line, f"`:load: {cell.load}` is outside snippets/"))
        return found


def in_snippets(path: Path, root: Path = ROOT) -> bool:
    """The resolved `path` names a file in the checkout's snippets/ (at any depth), not the folder itself."""
    return path.parent.is_relative_to(root / "snippets")


def checkout_root(page: Path) -> Path:
    """The checkout a page belongs to: the folder above its docs/."""
    return next((folder.parent for folder in page.parents if folder.name == "docs"), ROOT)


def snippet_hash(snippet: Path) -> str:
    """Identifies a snippet's content: a test record of another content is stale."""
    return hashlib.sha256(Path(snippet).read_bytes()).hexdigest()[:16]


def relative(path: Path) -> str:
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


@cache
def _markdown_parser():
    return create_md_parser(MdParserConfig(enable_extensions=set(MYST_EXTENSIONS)), RendererHTML)


def read_page(path: Path, text: str | None = None) -> Page:
    path = Path(path).resolve()
    text = path.read_text(encoding="utf-8") if text is None else text
    page = Page(path, text)
    _read_tokens(page, text, first_line=1, top_level=True)
    return page


def _front_matter(yaml_text: str, opening_line: int) -> tuple[dict, tuple[int, str] | None]:
    """The front matter below the opening --- at `opening_line`, or {} and (line, why) when it is no
    YAML mapping (the exceptions myst-parser's own reading of it catches)."""
    try:
        found = yaml.safe_load(yaml_text)
    except (yaml.YAMLError, ValueError, RecursionError) as error:
        problem, context = getattr(error, "problem_mark", None), getattr(error, "context_mark", None)
        if problem is None and isinstance(getattr(error, "position", None), int):  # a ReaderError: bad character
            problem = SimpleNamespace(line=yaml_text.count("\n", 0, error.position))
        said = ", ".join(filter(None, (getattr(error, "context", None), getattr(error, "problem", None))))
        said = said or " ".join(str(error).split()).split(' in "<unicode string>"')[0]  # no offset in the YAML
        if context is not None and problem is not None and context.line != problem.line:
            said += f" (opened at line {opening_line + 1 + context.line})"
        if problem is None:  # no place given (a bad date): the front matter as a whole
            return {}, (opening_line, f"the front matter, below this line, is not YAML: {said}")
        return {}, (opening_line + 1 + problem.line, f"the front matter is not YAML: {said}")
    if found is not None and not isinstance(found, dict):
        return {}, (opening_line + 1, f"the front matter is a YAML {type(found).__name__}, not a mapping of keys")
    return found or {}, None


def _read_tokens(page: Page, markdown: str, first_line: int, top_level: bool) -> None:
    """Add what `markdown` (the page, or a directive's body starting at `first_line`) holds."""
    for token in _markdown_parser().parse(markdown):
        line = first_line + (token.map[0] if token.map else 0)
        if token.type == "front_matter" and top_level:
            page.front_matter, page.front_matter_error = _front_matter(token.content, line)
        elif token.type == "myst_target":
            page.labels.append(token.content)
        elif token.type in ("fence", "colon_fence") and token.info.startswith("{") and "}" in token.info:
            name, _, argument = token.info[1:].partition("}")
            parsed = parse_directive_text(_AnyOptions, "", token.content, validate_options=False)
            if name == "code-cell":
                # myst-nb runs top-level backtick cells only (a :::{code-cell} is not one)
                if top_level and token.level == 0 and token.type == "fence":
                    page.code_cells.append(
                        CodeCell(
                            page=page.path,
                            line=line,
                            end_line=first_line + token.map[1] - 1,
                            language=argument.strip(),
                            options=parsed.options,
                            body="\n".join(parsed.body),
                        )
                    )
                continue
            page.directives.append(Directive(name, argument.strip(), line, parsed.options))
            if name not in LITERAL_BODIES and parsed.body:
                # The body starts after the fence line and the options (body_offset counts those).
                _read_tokens(page, "\n".join(parsed.body), line + 1 + parsed.body_offset, top_level=False)
        elif token.type == "inline":
            _read_inline(page, token, line)


def _read_inline(page: Page, token, line: int) -> None:
    """Roles and plain words of one inline token, with the line each stands on."""
    words = []
    for child in token.children or []:
        if child.type in ("softbreak", "hardbreak"):
            page.prose.append((line, "".join(words)))
            words, line = [], line + 1
        elif child.type == "myst_role":
            page.roles.append(Role(child.meta["name"], child.content, line))
        elif child.type == "text":
            words.append(child.content)
    page.prose.append((line, "".join(words)))


def missing_twins(docs: Path = DOCS) -> list[tuple[Path, Path]]:
    """(missing page, its existing twin) for every page that exists in one language tree only."""
    trees = {
        language: {p.relative_to(docs / language) for p in (docs / language).rglob("*.md")} for language in LANGUAGES
    }
    return [
        (docs / language / name, docs / other / name)
        for language, names in trees.items()
        for other, other_names in trees.items()
        for name in sorted(other_names - names)
    ]


def page_of(env, docname: str | None = None) -> Page:
    """The model of a page in the Sphinx build, parsed once when Sphinx reads the page and kept on the
    environment by PageModels (pickled with it, so an unchanged page is not parsed again)."""
    docname = docname or env.docname
    models = PageModels.stored(env)
    if docname not in models:
        models[docname] = read_page(Path(env.doc2path(docname)))
    return models[docname]


class PerPage(EnvironmentCollector):
    """A dict docname → value kept on the environment as ``env.<attribute>``: a page's entry goes when
    Sphinx purges the page, and a parallel read's entries are merged into the main environment."""

    attribute: str

    @classmethod
    def stored(cls, env) -> dict:
        return env.__dict__.setdefault(cls.attribute, {})

    def clear_doc(self, app, env, docname):
        self.stored(env).pop(docname, None)

    def merge_other(self, app, env, docnames, other):
        self.stored(env).update({d: value for d, value in self.stored(other).items() if d in docnames})


class PageModels(PerPage):
    """env.book_pages: docname → Page. Sphinx purges a page before reading it again, so a model is
    always of the text Sphinx read."""

    attribute = "book_pages"

    def process_doc(self, app, doctree):
        page_of(app.env)  # every page read keeps its model, whether or not an extension asked for it


def every_page_depends_on(app, *files: Path) -> None:
    """Sphinx reads every page again when one of `files` changes: each shapes what any page becomes."""
    app.connect("source-read", lambda app, docname, source: [app.env.note_dependency(str(f)) for f in files])


def setup(app):
    """The page model as a Sphinx extension: every other extension reads pages through page_of."""
    from book_extensions import ENV_VERSION

    app.add_env_collector(PageModels)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}


def book_pages(language: str) -> dict[str, Page]:
    """The pages of one language, keyed by their path inside the language's tree."""
    tree = DOCS / language
    return {str(p.relative_to(tree)): read_page(p) for p in sorted(tree.rglob("*.md"))}
