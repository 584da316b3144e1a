"""Each chapter as a notebook a reader runs with torch and matplotlib alone: <page>.ipynb, beside
<page>.html (so every relative link Sphinx made is right from it too), in the page's language.

- Markdown cells are written from the page's resolved doctree (``MarkdownWriter``): glued values,
  callouts, claim marks and links read as the page shows them; a node without a Markdown form fails
  the build with page and line instead of vanishing. A section starts a new cell.
- Code cells are the page's snippets, verbatim, in order, with the outputs recorded in the execution
  cache, treated as myst-nb treats them on the page (with myst-nb's own functions), and with their
  tags, so that "Run all" goes on past a raises-exception cell.
- A first code cell stands in for the helpers the snippets import (``stand_ins``).
- With ``html_baseurl`` set, links to the site are absolute, so a downloaded copy still reaches it.

Sphinx: ``doctree-resolved`` writes the notebook; ``html-page-context`` adds it to the theme's
download menu. Canary: ``staged-notebook`` in upstream/notebook_stack.py. Tests: tests/test_notebooks.py.
"""

from __future__ import annotations

import ast
import base64
import copy
import html
import mimetypes
import posixpath
import re
from functools import cache
from pathlib import Path
from urllib.parse import urljoin

import nbformat
from docutils import nodes
from myst_nb.core.utils import coalesce_streams
from myst_nb.ext.glue import extract_glue_data_cell
from myst_nb.sphinx_ import NbMetadataCollector
from myst_nb.sphinx_ext import OUTPUT_FOLDER
from sphinx.locale import admonitionlabels
from sphinx.util import logging

import book_settings
from book_extensions import ENV_VERSION
from book_extensions import pages
from book_extensions.claims import checks_that_parse
from book_extensions.stand_ins import HELPER_MODULE, HELPERS, helper_imports, stand_in_code
from book_extensions.snippet_cells import rendered_code_cells

logger = logging.getLogger(__name__)

SUFFIX = ".ipynb"
STAND_IN_CELL_ID = "measured-stand-ins"  # the tests find the stand-in cell by this id
METADATA_KEY = "autograd_measured"  # the notebook's own metadata: its page, language and torch
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}

STRINGS = {
    "zh_CN": {
        "download": "下载本章的 Jupyter 笔记本（可运行）",
        "and": "、",
        "about": (
            "本笔记本就是网页[{title}]({url})：正文、按顺序排列的全部代码片段，以及本书构建时用 torch {torch} "
            "实际运行记录下来的输出。只需安装 `torch` 和 `matplotlib`，在 Jupyter 里从上到下运行即可，"
            "不需要本书的代码仓库。"
        ),
        "stand-ins": (
            "本章的代码片段从本书的辅助模块 `{module}` 导入 {names}。下面这个单元格代替这个模块："
            "除 `glue` 外都是 `{helpers}` 里的原样代码；`glue` 在书中把数值交给正文显示，这里只把数值存进"
            "字典 `glued`（正文里的数值就是构建时记录的值）。这个单元格把它们注册为模块 `{module}`，"
            "所以下面的代码片段与网页上的一字不差。"
        ),
    },
    "en": {
        "download": "Download this chapter as a Jupyter notebook you can run",
        "and": ", ",
        "about": (
            "This notebook is the page [{title}]({url}): its prose, every snippet in order, and the "
            "outputs the book's build recorded when it ran them with torch {torch}. It runs top to "
            "bottom in Jupyter with only `torch` and `matplotlib` installed; the book's repository "
            "is not needed."
        ),
        "stand-ins": (
            "This chapter's snippets import {names} from the book's helper module `{module}`. The "
            "next cell stands in for that module: the code of `{helpers}` as it is, except `glue`, "
            "which in the book hands a value to the prose and here only keeps it in the dict "
            "`glued` (the numbers in the prose are the ones the build recorded). The cell registers "
            "them as the module `{module}`, so the snippets below are exactly the page's."
        ),
    },
}


# Markdown's inline punctuation, escaped wherever it stands in text; `_` only at a word's edge
# (inside a word it never starts emphasis); `$`, since Jupyter renders $…$ as mathematics.
MARKDOWN_PUNCTUATION = re.compile(r"([\\`*\[\]<>#|~$])")
UNDERSCORE_AT_EDGE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
ENTITY_LIKE = re.compile(r"&(?=#?[0-9A-Za-z]+;)")
# What would make a paragraph's text start a list item or a thematic break instead.
BLOCK_START = re.compile(r"^([-+=])|^(\d{1,9})([.)])(?=\s|$)")
FENCE_LANGUAGES = {"ipython3": "python", "python": "python", "diff": "diff"}  # others: no language


class NoMarkdownForm(Exception):
    """A node of the page that this module cannot write as Markdown."""

    def __init__(self, node: nodes.Node, why: str = ""):
        super().__init__(why or f"a <{node.tagname}> node has no Markdown form in the notebook")
        self.node = node


def code_span(text: str, in_table: bool = False) -> str:
    text = text.replace("\n", " ")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    if in_table:
        text = text.replace("|", r"\|")
    return f"{ticks}{pad}{text}{pad}{ticks}"


def escape(text: str) -> str:
    text = MARKDOWN_PUNCTUATION.sub(r"\\\1", text.replace("\n", " "))
    return ENTITY_LIKE.sub("&amp;", UNDERSCORE_AT_EDGE.sub(r"\\_", text))


def fenced(text: str, language: str = "") -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def prefixed(text: str, first: str, rest: str) -> str:
    """`text` with `first` before its first line and `rest` before the others (a blank line gets only
    what `rest` holds besides spaces: nothing in a list item, `>` in a block quote)."""
    lines = text.split("\n")
    return "\n".join([first + lines[0], *((rest + line) if line else rest.rstrip() for line in lines[1:])])


def link(label: str, url: str, title: str = "") -> str:
    if re.search(r"[\s()<>]", url):
        url = f"<{url}>"
    title = ' "' + title.replace('"', '\\"') + '"' if title else ""
    return f"[{label}]({url}{title})"


@cache
def _claim_lines(claims_file: Path, mtime: float) -> dict[str, int]:
    return {
        node.name: node.lineno
        for node in ast.parse(claims_file.read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef)
    }


def claim_url(code: str, branch: str) -> str | None:
    """The check whose code a claim mark shows, in the repository, at its line."""
    checks, _ = checks_that_parse()  # a claims file that does not parse is reported at its claims
    check = next((name for name, source in checks.items() if source == code), None)
    if check is None:
        return None
    chapter, name = check.split("/")
    claims_file = pages.SNIPPETS / chapter / pages.CLAIMS_FILE
    line = _claim_lines(claims_file, claims_file.stat().st_mtime)[name]
    return f"{book_settings.REPOSITORY}/blob/{branch}/{pages.relative(claims_file)}#L{line}"


class MarkdownWriter:
    """Writes the nodes of one page's resolved doctree as Markdown, as the page shows them."""

    def __init__(self, app, docname: str):
        self.app, self.docname = app, docname
        self.page_url = page_url(app, docname)
        self.branch = app.config.html_theme_options.get("repository_branch", "main")

    # --- where links lead
    def site_url(self, relative: str) -> str:
        """A URL relative to the page, absolute when the site's address is known."""
        return urljoin(self.page_url, relative) if "://" in self.page_url else relative

    def reference_url(self, node: nodes.reference) -> str:
        if "refuri" in node:
            uri = node["refuri"]
            if "://" in uri or uri.startswith("mailto:"):
                return uri
            return self.site_url(uri or posixpath.basename(self.docname) + ".html")
        if "refid" in node:  # a place on this page
            return self.site_url(f"{posixpath.basename(self.docname)}.html#{node['refid']}")
        raise NoMarkdownForm(node, "a reference without a target")

    # --- blocks
    def blocks(self, children) -> str:
        return "\n\n".join(text for text in (self.block(child) for child in children) if text)

    def block(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.Admonition):
            return self.admonition(node)
        handler = getattr(self, f"block_{type(node).__name__}", None)
        if handler is None:
            raise NoMarkdownForm(node)
        return handler(node)

    def block_paragraph(self, node) -> str:
        text = self.inlines(node).strip()
        return BLOCK_START.sub(lambda m: f"\\{m.group(1)}" if m.group(1) else f"{m.group(2)}\\{m.group(3)}", text)

    def block_bullet_list(self, node) -> str:
        return self.list_items(node, ["- "] * len(node.children))

    def block_enumerated_list(self, node) -> str:
        if node.get("enumtype", "arabic") != "arabic":
            raise NoMarkdownForm(node, f"a list numbered {node['enumtype']}: Markdown numbers lists in arabic only")
        start, suffix = node.get("start", 1), node.get("suffix", ".")
        markers = [f"{start + n}{suffix} " for n in range(len(node.children))]
        return self.list_items(node, [marker.ljust(len(markers[-1])) for marker in markers])

    def list_items(self, node, markers: list[str]) -> str:
        items = [
            prefixed(self.blocks(item.children), marker, " " * len(marker))
            for marker, item in zip(markers, node.children)
        ]
        return ("\n\n" if any("\n\n" in item for item in items) else "\n").join(items)

    def block_literal_block(self, node) -> str:
        return fenced(node.astext(), FENCE_LANGUAGES.get(node.get("language", ""), ""))

    def admonition(self, node) -> str:
        children = list(node.children)
        if children and isinstance(children[0], nodes.title):
            title = self.inlines(children.pop(0))
        elif node.tagname in admonitionlabels:  # tip, warning, …: Sphinx's label in the page's language
            title = escape(str(admonitionlabels[node.tagname]))
        else:
            raise NoMarkdownForm(node, f"an admonition <{node.tagname}> without a title")
        return prefixed(f"**{title}**\n\n{self.blocks(children)}", "> ", "> ")

    def block_rubric(self, node) -> str:
        return f"**{self.inlines(node)}**"

    def block_container(self, node) -> str:
        if node.get("nb_element") == "cell_code":
            raise NoMarkdownForm(node, "a code cell inside another element: the notebook has only top-level cells")
        return self.blocks(node.children)

    def block_dropdown_main(self, node) -> str:
        """sphinx-design's dropdown: a <details> element, which Jupyter's Markdown renders folded."""
        title = next(child for child in node.findall(nodes.inline) if "sd-summary-text" in child["classes"])
        body = next(child for child in node.children if isinstance(child, nodes.container))
        return self.details(title.astext(), body.children)

    def block_torch_difference(self, node) -> str:
        return self.details(node["summary"], node.children)

    def details(self, summary: str, children) -> str:
        summary = html.escape(summary, quote=False)
        return f"<details>\n<summary>{summary}</summary>\n\n{self.blocks(children)}\n\n</details>"

    def block_figure(self, node) -> str:
        return self.blocks(node.children)

    def block_caption(self, node) -> str:
        return self.block_paragraph(node)

    def block_legend(self, node) -> str:
        return self.blocks(node.children)

    def block_image(self, node) -> str:
        return self.inline_image(node)

    def block_table(self, node) -> str:
        group = next(iter(node.findall(nodes.tgroup)))
        rows = [
            [self.table_cell(entry) for entry in row.children]
            for part in group.children
            if isinstance(part, (nodes.thead, nodes.tbody))
            for row in part.children
        ]
        if not rows:
            return ""
        header, *body = rows
        lines = [header, ["---"] * len(header), *body]
        return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)

    def table_cell(self, entry) -> str:
        parts = []
        for child in entry.children:
            if not isinstance(child, nodes.paragraph):
                raise NoMarkdownForm(
                    child, f"a <{child.tagname}> in a table cell: a Markdown table cell holds one line"
                )
            parts.append(self.inlines(child, in_table=True))
        return "<br>".join(parts)

    def block_transition(self, node) -> str:
        return "---"

    # Labels, comments (a Sybil block hidden from the reader) and definitions show nothing on the page.
    def block_target(self, node) -> str:
        return ""

    block_comment = block_substitution_definition = block_target

    # --- inline
    def inlines(self, node, in_table: bool = False) -> str:
        return "".join(self.inline(child, in_table) for child in node.children)

    def inline(self, node: nodes.Node, in_table: bool = False) -> str:
        if isinstance(node, nodes.Text):
            return escape(str(node))
        handler = getattr(self, f"inline_{type(node).__name__}", None)
        if handler is None:
            raise NoMarkdownForm(node)
        return handler(node, in_table)

    def inline_literal(self, node, in_table=False) -> str:
        return code_span(node.astext(), in_table)

    def inline_emphasis(self, node, in_table=False) -> str:
        return f"*{self.inlines(node, in_table)}*"

    def inline_strong(self, node, in_table=False) -> str:
        return f"**{self.inlines(node, in_table)}**"

    def inline_inline(self, node, in_table=False) -> str:
        # glued values (pasted-text), reading time, torch versions: their text is what the page shows
        return self.inlines(node, in_table)

    def inline_reference(self, node, in_table=False) -> str:
        return link(self.inlines(node, in_table), self.reference_url(node), node.get("reftitle", ""))

    def inline_download_reference(self, node, in_table=False) -> str:
        if "filename" not in node:
            raise NoMarkdownForm(node, f"the download {node.get('reftarget')!r} was not found")
        return link(self.inlines(node, in_table), self.site_url(f"_downloads/{node['filename']}"))

    def inline_claim_mark(self, node, in_table=False) -> str:
        url = claim_url(node["code"], self.branch)
        if url is None:
            raise NoMarkdownForm(node, f"a claim mark whose check is not in any claims.py: {node['title']}")
        return link("✓", url, node["title"])

    def inline_image(self, node, in_table=False) -> str:
        """The image as a data URL in an <img>: a downloaded notebook has no site beside it, JupyterLab
        renders no SVG attachment, and markdown-it (under some viewers) refuses a data:image/svg+xml link."""
        uri = node.get("candidates", {}).get("*", node["uri"])
        path = Path(self.app.srcdir, uri)
        mime = mimetypes.guess_type(path.name)[0]
        if not path.is_file() or not mime or not mime.startswith("image/"):
            raise NoMarkdownForm(node, f"the image {uri} cannot be read")
        data = base64.b64encode(path.read_bytes()).decode("ascii")
        return f'<img src="data:{mime};base64,{data}" alt="{html.escape(node.get("alt", ""))}">'


def page_url(app, docname: str) -> str:
    """Where the site serves the page: html_baseurl + page, as Sphinx's canonical link names it, or,
    without html_baseurl, the page's own name (links then stay relative to it)."""
    name = f"{docname}.html"
    return urljoin(app.config.html_baseurl.rstrip("/") + "/", name) if app.config.html_baseurl else name


def recorded_code_cells(app, docname: str) -> list[nbformat.NotebookNode]:
    """The page's code cells with the outputs the build recorded, as the page shows them."""
    from jupyter_cache import get_cache

    staged = nbformat.read(Path(app.outdir).parent / OUTPUT_FOLDER / f"{docname}.ipynb", as_version=4)
    _, executed = get_cache(app.config.nb_execution_cache_path).merge_match_into_notebook(staged)
    cells = [copy.deepcopy(cell) for cell in executed.cells if cell.cell_type == "code"]
    for cell in cells:
        extract_glue_data_cell(cell)  # drops what glue(display=False) published: the page does not show it
        if app.config.nb_merge_streams:
            cell.outputs = coalesce_streams(cell.outputs)
    return cells


def has_notebook(env, docname: str) -> bool:
    page = pages.page_of(env, docname)
    return bool(page.code_cells) and page.is_notebook and not page.problems()


def _title(document) -> str:
    section = next(iter(document.findall(nodes.section)), None)
    return section[0].astext() if section is not None else ""


def make_notebook(app, doctree: nodes.document, docname: str) -> nbformat.NotebookNode:
    page = pages.page_of(app.env, docname)
    rendered = {id(node): position for position, node in enumerate(rendered_code_cells(doctree))}
    recorded = recorded_code_cells(app, docname)
    if not len(rendered) == len(recorded) == len(page.code_cells):
        raise NoMarkdownForm(
            doctree,
            f"{len(page.code_cells)} code cells in the page, {len(rendered)} rendered and "
            f"{len(recorded)} recorded: they cannot be matched",
        )
    writer = MarkdownWriter(app, docname)
    strings = STRINGS[app.config.language]
    url = writer.site_url(posixpath.basename(docname) + ".html")
    names = sorted({name for cell in page.code_cells for name in helper_imports(cell.snippet)})
    cells: list[nbformat.NotebookNode] = []
    prose: list[str] = []

    def end_prose():
        text = "\n\n".join(block for block in prose if block)
        if text:
            cells.append(nbformat.v4.new_markdown_cell(text, id=f"prose-{len(cells) + 1}"))
        prose.clear()

    def introduce():
        """Before the first snippet: what the notebook is, and the cell that stands in for the helpers."""
        end_prose()
        prose.append(strings["about"].format(title=escape(_title(doctree)), url=url, torch=app.config.book_torch))
        if names:
            prose.append(
                strings["stand-ins"].format(
                    module=HELPER_MODULE,
                    helpers=pages.relative(HELPERS),
                    names=strings["and"].join(f"`{name}`" for name in names),
                )
            )
        end_prose()
        if names:
            cells.append(nbformat.v4.new_code_cell(stand_in_code(names), id=STAND_IN_CELL_ID))

    def add_code(node: nodes.container):
        position = rendered[id(node)]
        if position == 0:
            introduce()
        end_prose()
        record = recorded[position]
        cell = nbformat.v4.new_code_cell(
            record.source, id=f"snippet-{position + 1}", execution_count=record.get("execution_count")
        )
        cell.outputs = record.outputs
        if page.code_cells[position].tags:
            cell.metadata["tags"] = list(page.code_cells[position].tags)
        cells.append(cell)
        # What the page shows under the cell besides its outputs: the folded differences on other torch versions.
        prose.extend(
            writer.block(child)
            for child in node.children
            if child.get("nb_element") not in ("cell_code_source", "cell_code_output")
            and "snippet-source" not in child.get("classes", [])
        )

    def walk(children, depth: int):
        for child in children:
            if isinstance(child, nodes.container) and child.get("nb_element") == "cell_code":
                add_code(child)
            elif isinstance(child, nodes.section):
                end_prose()  # a section starts a cell: Jupyter folds a cell's heading with what follows
                prose.append(f"{'#' * (depth + 1)} {writer.inlines(child[0])}")
                walk(child.children[1:], depth + 1)
            elif isinstance(child, nodes.paragraph) and "execution-badge" in child["classes"]:
                continue  # when the page's code ran: the first Markdown cell names the torch, not a date
            else:
                prose.append(writer.block(child))

    walk(doctree.children, 0)
    end_prose()
    notebook = nbformat.v4.new_notebook(
        cells=cells,
        metadata={
            "kernelspec": KERNELSPEC,
            "language_info": {"name": "python"},
            METADATA_KEY: {"page": url, "language": app.config.language, "torch": app.config.book_torch},
        },
    )
    nbformat.validate(notebook)
    return notebook


def write_notebook(app, doctree, docname):
    if app.builder.format != "html" or not has_notebook(app.env, docname):
        return
    data = NbMetadataCollector.get_exec_data(app.env, docname) or {}
    if not data.get("succeeded"):
        return  # its failed execution is reported, with the snippet's line, by snippet_cells
    try:
        notebook = make_notebook(app, doctree, docname)
    except NoMarkdownForm as problem:
        logger.error(
            f"the page's notebook cannot be made: {problem}", location=problem.node, type="notebook", subtype="markdown"
        )
        return
    except (KeyError, ValueError, OSError) as problem:  # not in the execution cache, a snippet's import, a missing file
        logger.error(
            f"the page's notebook cannot be made: {problem}", location=docname, type="notebook", subtype="cells"
        )
        return
    target = Path(app.outdir, docname + SUFFIX)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")


def offer_download(app, pagename, templatename, context, doctree):
    """The notebook in the page's download menu, after the Markdown source (the theme's entries
    are .md and .pdf; its own .ipynb entry would be myst-nb's staged notebook, without outputs)."""
    if doctree is None or not has_notebook(app.env, pagename):
        return
    menu = next(
        (button for button in context.get("header_buttons", []) if button.get("label") == "download-buttons"), None
    )
    if menu is None:
        logger.error(
            "the theme's download menu is missing, so the page's notebook cannot be offered there "
            "(sphinx_book_theme.header_buttons.add_header_buttons)",
            location=pagename,
            type="notebook",
            subtype="download",
        )
        return
    entry = {
        "type": "link",
        "url": posixpath.basename(pagename) + SUFFIX,
        "text": SUFFIX,
        "tooltip": STRINGS[app.config.language]["download"],
        "icon": "fas fa-code",
        "label": "download-notebook-button",
    }
    after = next(
        (n for n, button in enumerate(menu["buttons"]) if button.get("label") == "download-source-button"),
        len(menu["buttons"]) - 1,
    )
    menu["buttons"].insert(after + 1, entry)


def setup(app):
    app.setup_extension("book_extensions.badges")  # declares book_torch
    app.connect("doctree-resolved", write_notebook)
    # After the theme fills header_buttons (its handlers run at priority 501).
    app.connect("html-page-context", offer_download, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
