"""The chapter notebooks (conf/book_extensions/notebooks.py): each holds the page, and runs where a reader runs it.

The structure is checked against what Sphinx built: the page's snippets, its pickled doctree (the
outputs myst-nb rendered, the values it pasted) and its HTML (the download menu, the targets of
links). Then each chapter's notebook is executed top to bottom by nbclient, in a fresh kernel that
can import only what a reader has: the standard library, torch, matplotlib and Jupyter's kernel,
with their dependencies. The book's own modules (the helpers the snippets import, the build's, the
tests') raise ModuleNotFoundError there, so a notebook that needed one fails.
"""

from __future__ import annotations

import copy
import os
import re
from functools import cache
from importlib.metadata import PackageNotFoundError, distribution, packages_distributions
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from docutils import nodes
from markdown_it import MarkdownIt
from nbclient import NotebookClient
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import book_settings
from book_extensions import exercises, notebooks, pages
from exercise_judge import limits
from book_extensions.snippet_cells import ANSI, rendered_code_cells
from built_site import doctree

NOTEBOOK_PAGES = [
    (language, name, page)
    for language in pages.LANGUAGES
    for name, page in pages.book_pages(language).items()
    if page.code_cells
]
IDS = [f"{language}/{name}" for language, name, _ in NOTEBOOK_PAGES]
CHAPTERS = sorted({name for _, name, _ in NOTEBOOK_PAGES})

# What MyST writes and plain Markdown does not: a role ({glue:text}`key`), a directive fence
# (```{tip} or :::{dropdown}, also inside a block quote), a label line ((slug)=), a comment (% …).
MYST_LEFT = {
    "role": re.compile(r"\{[A-Za-z][\w:.-]*\}`"),
    "directive": re.compile(r"^[ >]*(?:`{3,}|:{3,})\{", re.MULTILINE),
    "label": re.compile(r"^[ >]*\([\w-]+\)=\s*$", re.MULTILINE),
    "comment": re.compile(r"^%", re.MULTILINE),
}
MARKDOWN = MarkdownIt("commonmark").enable("table")


def notebook_path(site: Path, language: str, name: str) -> Path:
    return site / language / Path(name).with_suffix(notebooks.SUFFIX)


@cache
def read_notebook(path: Path) -> nbformat.NotebookNode:
    assert path.is_file(), f"{pages.relative(path)} was not built"
    return nbformat.read(path, as_version=4)


def snippet_cells(notebook) -> list:
    """The notebook's code cells after the stand-in cell, if it has one."""
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    return code[1:] if code and code[0].get("id") == notebooks.STAND_IN_CELL_ID else code


def prose(notebook) -> str:
    return "\n\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


def unescaped(markdown: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)


@pytest.mark.parametrize("language", pages.LANGUAGES)
def test_each_page_with_code_cells_has_its_notebook_and_only_those(site, language):
    found = sorted(
        str(p.relative_to(site / language))
        for p in (site / language).rglob("*" + notebooks.SUFFIX)
        if p.parent.name != exercises.FOLDER
    )  # the exercises' notebooks: tests/test_exercise_notebooks.py
    wanted = sorted(
        str(Path(name).with_suffix(notebooks.SUFFIX)) for lang, name, _ in NOTEBOOK_PAGES if lang == language
    )
    assert found == wanted, f"{language}: notebooks in the site {found}, pages with code cells {wanted}"


@pytest.mark.parametrize(("language", "name", "page"), NOTEBOOK_PAGES, ids=IDS)
def test_the_notebook_is_valid_and_in_the_page_language(site, language, name, page):
    notebook = read_notebook(notebook_path(site, language, name))
    nbformat.validate(notebook)
    about = notebook.metadata[notebooks.METADATA_KEY]
    assert about["language"] == pages.LANGUAGES[language], about
    assert about["page"].endswith(f"{language}/{Path(name).with_suffix('.html')}") or about["page"] == str(
        Path(name).with_suffix(".html")
    ), about
    assert notebook.metadata.kernelspec["name"] == "python3"
    title = next(cell.source for cell in notebook.cells if cell.cell_type == "markdown").splitlines()[0]
    assert title.startswith("# "), f"{language}/{name}: the first cell is not the title"


@pytest.mark.parametrize(("language", "name", "page"), NOTEBOOK_PAGES, ids=IDS)
def test_its_code_cells_are_the_page_snippets_in_order_with_their_tags(site, language, name, page):
    notebook = read_notebook(notebook_path(site, language, name))
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    imports = sorted({name for snippet in page.snippets for name in notebooks.helper_imports(snippet)})
    stand_in = code[0] if code and code[0].get("id") == notebooks.STAND_IN_CELL_ID else None
    assert bool(stand_in) == bool(imports), (
        f"{language}/{name}: the snippets import {imports} from {notebooks.HELPER_MODULE}, the first code cell is "
        f"{'a' if stand_in else 'no'} stand-in"
    )
    if stand_in:
        assert f"vars({notebooks.HELPER_MODULE}).update({', '.join(f'{n}={n}' for n in imports)})" in stand_in.source
        assert not stand_in.outputs and stand_in.execution_count is None
    cells = snippet_cells(notebook)
    assert [cell.source for cell in cells] == [s.read_text(encoding="utf-8") for s in page.snippets], (
        f"{language}/{name}: the code cells are not the page's snippets, in order"
    )
    assert [cell.metadata.get("tags", []) for cell in cells] == [cell.tags for cell in page.code_cells]
    raising = [cell.metadata.get("tags", []).count(pages.RAISES_TAG) for cell in cells]
    assert raising == [int(cell.raises) for cell in page.code_cells]


def page_outputs(cell: nodes.container) -> list[tuple]:
    """What the page shows under a rendered cell, as (kind, text): streams, results by their mime
    types and text, an error by its last line. Only the `cell_code_output` container is output."""
    shown = []
    for output in (child for child in cell.children if child.get("nb_element") == "cell_code_output"):
        for node in output.children:
            classes = set(node.get("classes", []))
            if isinstance(node, nodes.literal_block) and classes & {"stream", "stderr"}:
                shown.append(("stream", node.astext().rstrip("\n")))
            elif isinstance(node, nodes.literal_block) and "traceback" in classes:
                shown.append(("error", ANSI.sub("", node.astext()).rstrip().splitlines()[-1]))
            elif node.get("nb_element") == "mime_bundle":
                bundle = {part["mime_type"]: part for part in node.children}
                text = bundle["text/plain"].astext() if "text/plain" in bundle else None
                shown.append(("result", sorted(bundle), text))
            else:
                shown.append(("unknown", node.tagname))
    return shown


def notebook_outputs(cell) -> list[tuple]:
    shown = []
    for output in cell.outputs:
        if output.output_type == "stream":
            shown.append(("stream", output.text.rstrip("\n")))
        elif output.output_type == "error":
            shown.append(("error", ANSI.sub("", f"{output.ename}: {output.evalue}")))
        else:
            shown.append(("result", sorted(output.data), output.data.get("text/plain")))
    return shown


@pytest.mark.parametrize(("language", "name", "page"), NOTEBOOK_PAGES, ids=IDS)
def test_its_outputs_are_what_the_page_shows(site, build, language, name, page):
    """Cell by cell, the notebook's outputs are the page's: the same streams, the same results, and
    as many images as the page shows."""
    rendered = rendered_code_cells(doctree(build, language, name))
    cells = snippet_cells(read_notebook(notebook_path(site, language, name)))
    assert len(rendered) == len(cells) == len(page.code_cells)
    for code_cell, node, cell in zip(page.code_cells, rendered, cells):
        assert notebook_outputs(cell) == page_outputs(node), f"{language}/{name}: the cell at {code_cell.where}"
        images = {
            mime: data
            for output in cell.outputs
            for mime, data in output.get("data", {}).items()
            if mime.startswith("image/")
        }
        files = [node_image["uri"] for node_image in node.findall(nodes.image)]
        assert len(images) == len(files), f"{language}/{name}: the cell at {code_cell.where}"


@pytest.mark.parametrize(("language", "name", "page"), NOTEBOOK_PAGES, ids=IDS)
def test_its_prose_is_markdown_without_myst(site, language, name, page):
    """No role, directive, label or comment is left; rendered as CommonMark (with tables), no
    emphasis mark or link syntax stays visible as text."""
    notebook = read_notebook(notebook_path(site, language, name))
    found = []
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        for kind, pattern in MYST_LEFT.items():
            found += [f"{cell.id}: a {kind}: {m.group(0)!r}" for m in pattern.finditer(cell.source)]
        text = "".join(
            token.content
            for block in MARKDOWN.parse(cell.source)
            for token in (block.children or [])
            if token.type == "text"
        )
        found += [f"{cell.id}: {mark!r} left as text" for mark in ("**", "](", "`") if mark in text]
    assert not found, f"{language}/{name}:\n" + "\n".join(found)


@pytest.mark.parametrize(("language", "name", "page"), NOTEBOOK_PAGES, ids=IDS)
def test_its_prose_quotes_the_values_the_build_pasted(site, build, language, name, page):
    """Every glued value the page shows, in the page's order, is in the notebook's Markdown."""
    pasted = [
        node.astext()
        for node in doctree(build, language, name).findall(nodes.inline)
        if "pasted-text" in node["classes"]
    ]
    assert len(pasted) >= len(page.glue_refs), f"{language}/{name}: the page pasted fewer values than it quotes"
    markdown, at = unescaped(prose(read_notebook(notebook_path(site, language, name)))), 0
    for value in pasted:
        found = markdown.find(value, at)
        assert found >= 0, (
            f"{language}/{name}: the pasted value {value!r} is not in the notebook after {markdown[at - 80 : at]!r}"
        )
        at = found + len(value)


@pytest.mark.parametrize(("language", "name", "page"), NOTEBOOK_PAGES, ids=IDS)
def test_its_links_into_the_site_lead_to_a_page_and_place_there(site, language, name, page):
    notebook = read_notebook(notebook_path(site, language, name))
    page_url = notebook.metadata[notebooks.METADATA_KEY]["page"]
    base = page_url[: page_url.rfind("/") + 1]  # the language's folder on the site; "" when the links are relative
    wrong, internal = [], 0
    for block in MARKDOWN.parse(prose(notebook)):
        for token in block.children or []:
            href = token.attrGet("href") if token.type == "link_open" else None
            if not href or ("://" in href and not (base and href.startswith(base))):
                continue  # PyTorch's reference, the repository
            internal += 1
            path, _, fragment = href.removeprefix(base).partition("#")
            target = site / language / path
            if not target.is_file():
                wrong.append(f"{href}: no {pages.relative(target)}")
            elif fragment and f'id="{fragment}"' not in target.read_text(encoding="utf-8"):
                wrong.append(f"{href}: no id {fragment!r} in {pages.relative(target)}")
    assert internal, f"{language}/{name}: the notebook links to nothing on the site (not even its page)"
    assert not wrong, f"{language}/{name}:\n" + "\n".join(wrong)


DOWNLOAD_MENU = re.compile(r'<div class="dropdown dropdown-download-buttons">(.*?)</ul>', re.DOTALL)


@pytest.mark.parametrize(("language", "name", "page"), NOTEBOOK_PAGES, ids=IDS)
def test_the_download_menu_offers_the_notebook(site, language, name, page):
    html = (site / language / Path(name).with_suffix(".html")).read_text(encoding="utf-8")
    menu = DOWNLOAD_MENU.search(html)
    assert menu, f"{language}/{name}: no download menu"
    hrefs = re.findall(r'href="([^"]+)"', menu.group(1))
    notebook = Path(name).with_suffix(notebooks.SUFFIX).name
    assert notebook in hrefs, f"{language}/{name}: the download menu links {hrefs}"
    assert hrefs.index(notebook) == hrefs.index(f"_sources/{Path(name).with_suffix('.md')}") + 1, hrefs
    tooltip = notebooks.STRINGS[pages.LANGUAGES[language]]["download"]
    assert f'title="{tooltip}"' in menu.group(1), f"{language}/{name}: the notebook's entry is not labelled {tooltip!r}"


@pytest.mark.torch_independent
def test_a_node_without_a_markdown_form_fails_instead_of_vanishing():
    """A page that starts using a node the writer has no Markdown form for fails the build (the
    extension logs the error at the node's page and line) rather than losing text from the notebook."""
    app = SimpleNamespace(config=SimpleNamespace(html_baseurl="", html_theme_options={}), srcdir=".")
    writer = notebooks.MarkdownWriter(app, "graph-lifecycle")
    footnote = nodes.paragraph("", "", nodes.Text("see "), nodes.footnote_reference("[1]", "1"))
    with pytest.raises(notebooks.NoMarkdownForm, match="footnote_reference") as raised:
        writer.block(footnote)
    assert isinstance(raised.value.node, nodes.footnote_reference)
    assert writer.block(nodes.paragraph("", "", nodes.Text("1. *not* a list"))) == r"1\. \*not\* a list"


@pytest.mark.torch_independent
def test_a_snippet_importing_the_helpers_otherwise_than_by_name_is_refused_with_its_line(tmp_path):
    snippet = tmp_path / "snippet.py"
    snippet.write_text("import torch\n\nimport measured\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"snippet\.py:3: write `from measured import <name>`"):
        notebooks.helper_imports(snippet)
    snippet.write_text("from measured import glue, figure\n", encoding="utf-8")
    assert notebooks.helper_imports(snippet) == ["glue", "figure"]


# --- Running the notebooks where a reader runs them.

BOOK_MODULES = ("measured", "prewarmed", "book_settings", "book_extensions", "exercise_judge")
READER_INSTALLS = ("torch", "matplotlib", "ipykernel")  # a reader's Jupyter kernel, torch and matplotlib


def installed_with(requirements: tuple[str, ...]) -> set[str]:
    """The top-level modules of these distributions and of everything they require, recursively
    (extras left out): what `pip install` of just these would have put in the environment."""
    seen, todo = set(), [canonicalize_name(name) for name in requirements]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:  # a requirement for another platform
            continue
        seen.add(name)
        for line in requires:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(canonicalize_name(requirement.name))
    return {
        module
        for module, dists in packages_distributions().items()
        if any(canonicalize_name(dist) in seen for dist in dists)
    }


# An IPython startup file: runs in the kernel before the notebook's first cell and leaves no name
# in its namespace. Every finder of the import system is wrapped so that it finds nothing but the
# standard library and the reader's installs (a module it does not find is not there: `import`
# raises ModuleNotFoundError, `importlib.util.find_spec` returns None, as torch's probes of optional
# packages expect), and never the book's modules. The venv has the project installed editable
# (snippets/ is on sys.path through a .pth file); conf/ and tests/ would come with PYTHONPATH, which
# the kernel does not get. The repository's folders also leave sys.path.
READERS_KERNEL = """\
def _a_readers_environment(allowed, blocked, repository):
    import sys

    class OnlyWhatAReaderHas:
        def __init__(self, finder):
            self.finder = finder

        def find_spec(self, name, path=None, target=None):
            top = name.partition(".")[0]
            if top in blocked or not (top in allowed or top in sys.stdlib_module_names):
                return None
            return self.finder.find_spec(name, path, target)

        def __getattr__(self, name):  # invalidate_caches, find_distributions, …
            return getattr(self.finder, name)

    sys.meta_path[:] = [OnlyWhatAReaderHas(finder) for finder in sys.meta_path]
    sys.path[:] = [entry for entry in sys.path if not entry.startswith(tuple(repository))]
"""


@pytest.fixture(scope="session")
def readers_kernel(tmp_path_factory) -> dict:
    """How nbclient starts a reader's kernel: its environment (no PYTHONPATH, an IPython folder whose
    startup file allows only what a reader has) and a working folder outside the repository."""
    home = tmp_path_factory.mktemp("reader")
    startup = home / "ipython" / "profile_default" / "startup" / "00-a-readers-environment.py"
    startup.parent.mkdir(parents=True)
    repository = [str(book_settings.ROOT / folder) for folder in ("snippets", "conf", "tests")]
    allowed = sorted(installed_with(READER_INSTALLS))
    startup.write_text(
        f"{READERS_KERNEL}\n\n_a_readers_environment({allowed!r}, {list(BOOK_MODULES)!r}, {repository!r})\n"
        "del _a_readers_environment\n",
        encoding="utf-8",
    )
    work = home / "work"
    work.mkdir()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "IPYTHONDIR": str(home / "ipython"),
        "MPLCONFIGDIR": str(home / "matplotlib"),
        "PYTHONNOUSERSITE": "1",
    }
    return {"env": env, "cwd": work}


def execute(notebook, kernel: dict) -> nbformat.NotebookNode:
    """Top to bottom in a new kernel, as Jupyter's "Run all": a cell tagged raises-exception may raise.
    The kernel is killed once the last cell's output is in, not asked to exit: nothing reads what it
    does then, and its own exit only adds waiting."""
    client = NotebookClient(
        notebook,
        timeout=limits.TIMEOUT_SECONDS,
        kernel_name="python3",
        allow_errors=False,
        resources={"metadata": {"path": str(kernel["cwd"])}},
        shutdown_kernel="immediate",
    )
    return client.execute(env=kernel["env"])


def test_a_readers_kernel_refuses_the_books_modules_and_what_a_reader_lacks(readers_kernel):
    """The check that a notebook needs no project helper can fail: in the kernel the tests run the
    notebooks in, each of the book's modules and a package a reader lacks cannot be imported,
    while torch, matplotlib and the standard library can."""
    refused = [*BOOK_MODULES, "sphinx", "myst_nb", "pytest", "nbclient"]
    cells = [nbformat.v4.new_code_cell("import json, torch, matplotlib.pyplot\nprint(torch.__version__)")]
    cells += [
        nbformat.v4.new_code_cell(f"import {module}", metadata={"tags": [pages.RAISES_TAG]}) for module in refused
    ]
    ran = execute(nbformat.v4.new_notebook(cells=cells), readers_kernel)
    assert ran.cells[0].outputs[0].text.startswith(book_settings.installed_torch())
    errors = {module: [output.get("ename") for output in cell.outputs] for module, cell in zip(refused, ran.cells[1:])}
    assert errors == {module: ["ModuleNotFoundError"] for module in refused}, errors


# With the default torch only: what this adds to each torch's build and Sybil runs of the same snippets
# is whether the notebook stands alone (its stand-in for the helpers, the reader's kernel), which no
# torch release changes.
@pytest.mark.torch_independent
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_notebook_runs_top_to_bottom_in_a_readers_kernel(site, readers_kernel, chapter):
    """Each chapter's notebook runs in a fresh reader's kernel. The two languages' notebooks hold the
    same code cells (asserted here: the same sources, tags and order), so one of them is executed, the
    book's first language's: the kernel never sees the Markdown, and running the other would run the
    same code again."""
    first, *others = pages.LANGUAGES
    notebook = read_notebook(notebook_path(site, first, chapter))
    code = [(cell.source, cell.metadata.get("tags", [])) for cell in notebook.cells if cell.cell_type == "code"]
    for language in others:
        twin = read_notebook(notebook_path(site, language, chapter))
        assert [
            (cell.source, cell.metadata.get("tags", [])) for cell in twin.cells if cell.cell_type == "code"
        ] == code, f"the {first} and {language} notebooks of {chapter} hold different code"
    execute(copy.deepcopy(notebook), readers_kernel)
