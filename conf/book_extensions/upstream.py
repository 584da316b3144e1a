"""The book's workarounds of other packages' internals, each with its canary.

Each workaround relies on something its package does not promise (an internal function, a
template's wording, a copied default, a bug), so an upgrade can make it stop working, or stop
being needed, in silence. Each canary here reads the installed package and returns what no longer
holds, each problem naming the file holding the workaround and the package versions it read.
tests/test_upstream.py runs them, and proves each fails on a simulated upgrade (``upstream``: a
modified copy of the upstream text or object; None reads the installed package).
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import book_settings


@dataclass(frozen=True)
class Workaround:
    guards: str  # the file holding the workaround, from the repository root
    packages: tuple[str, ...]  # the distributions whose internals it relies on
    assumes: str
    check: Callable[[Any], list[str]]

    def problems(self, upstream: Any = None) -> list[str]:
        read = ", ".join(f"{package} {version(package)}" for package in self.packages)
        return [f"{self.guards}: with {read}: {problem}" for problem in self.check(upstream)]


WORKAROUNDS: dict[str, Workaround] = {}


def _workaround(name: str, guards: str, packages: str, assumes: str):
    def register(check):
        WORKAROUNDS[name] = Workaround(guards, tuple(packages.split()), assumes, check)
        return check
    return register


def _package_file(package: str, *parts: str) -> Path:
    return Path(importlib.import_module(package).__file__).parent.joinpath(*parts)


# --- pages.py reads code cells with myst-parser's internals, as myst-nb does.

MYST_INTERNALS = {  # name: (module, arguments as pages.py, or for myst-nb's reader this check, passes them)
    "create_md_parser": ("myst_parser.parsers.mdit", ((None, None), {})),
    "parse_directive_text": ("myst_parser.parsers.directives", ((None, "", ""), {"validate_options": False})),
    "read_myst_markdown_notebook": ("myst_nb.core.read", (("",), {"config": None, "add_source_map": True,
                                                                   "path": None})),
}

# Cases the book's pages may not show yet: tags in either option syntax, and fences that look
# like code cells but are not (myst-nb runs top-level `{code-cell}` fences only).
CELL_SAMPLE = """---
file_format: mystnb
kernelspec:
  name: python3
---

# Sample

```{code-cell} ipython3
:tags: [raises-exception, remove-output]
print(1)
```

> ```{code-cell} ipython3
> print("quoted")
> ```

- ```{code-cell} ipython3
  print("listed")
  ```

````{note}
```{code-cell} ipython3
print("in a note")
```
````

:::{code-cell} ipython3
print("a colon fence")
:::

````{code-cell} ipython3
---
tags: [hide-input]
---
print(2)
````
"""


@_workaround(
    "myst-parser-internals", "conf/book_extensions/pages.py", "myst-parser myst-nb",
    "myst-parser's create_md_parser and parse_directive_text (internal API) still take the arguments "
    "pages.py passes, and the page model finds the code cells (line, options, tags, code) myst-nb reads",
)
def _code_cells_as_myst_nb_reads(upstream=None) -> list[str]:
    """upstream: a namespace holding the three functions of MYST_INTERNALS."""
    functions, problems = {}, []
    for name, (module, (args, kwargs)) in MYST_INTERNALS.items():
        try:
            functions[name] = (getattr(importlib.import_module(module), name) if upstream is None
                               else getattr(upstream, name))
            inspect.signature(functions[name]).bind(*args, **kwargs)
        except (ImportError, AttributeError, TypeError) as error:
            problems.append(f"{module}.{name} is gone or takes other arguments ({error}): "
                            "read the code cells the way the installed myst-nb does")
    if problems:
        return problems

    from myst_parser.config.main import MdParserConfig

    from book_extensions import pages

    config = MdParserConfig(enable_extensions=set(book_settings.MYST_EXTENSIONS))  # conf.py's, as Sphinx reads pages
    samples = [(pages.relative(page.path), page.path, page.text) for language in book_settings.LANGUAGES
               for page in pages.book_pages(language).values()]
    for name, path, text in [*samples, ("upstream.CELL_SAMPLE", None, CELL_SAMPLE)]:
        page = pages.read_page(path or book_settings.CONF / "cell-sample.md", text)
        ours = [(cell.line, cell.options, cell.tags,
                 cell.snippet.read_text() if cell.snippet and cell.snippet.is_file() else cell.body)
                for cell in page.code_cells]
        try:
            notebook = functions["read_myst_markdown_notebook"](text, config=config, add_source_map=True, path=path)
        except Exception as error:  # a page's own problems (a missing :load: file) fail the build anyway
            problems.append(f"myst-nb cannot read {name}: {error!r}")
            continue
        theirs = [(line, dict(cell.metadata), list(cell.metadata.get("tags", [])), cell.source)
                  for cell, line in zip(notebook.cells, notebook.metadata["source_map"]) if cell.cell_type == "code"]
        if ours != theirs:
            first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            cell_of = lambda cells: cells[first][:3] if first < len(cells) else None  # noqa: E731
            problems.append(
                f"in {name}, the page model finds {len(ours)} code cell(s), myst-nb reads {len(theirs)}; "
                f"the first that differs (line, options, tags): ours {cell_of(ours)}, myst-nb's {cell_of(theirs)}"
                + ("; their code differs" if cell_of(ours) == cell_of(theirs) else ""))
    return problems


# --- chrome.py replaces English words the themes hard-code in their templates.

def _theme_templates() -> dict[str, str]:
    return {f"{package}/{path.relative_to(_package_file(package))}": path.read_text(encoding="utf-8")
            for package in ("pydata_sphinx_theme", "sphinx_book_theme")
            for path in sorted(_package_file(package, "theme").rglob("*.html"))}


@_workaround(
    "theme-hard-coded-strings", "conf/book_extensions/chrome.py", "pydata-sphinx-theme sphinx-book-theme",
    "the themes' templates still hard-code each English string chrome.HARD_CODED replaces in the written pages",
)
def _hard_coded_strings_still_in_themes(upstream=None) -> list[str]:
    """upstream: {template path: text} of the installed themes."""
    from book_extensions.chrome import HARD_CODED

    templates = _theme_templates() if upstream is None else upstream
    return [f"no template of the installed themes holds {english!r} any more, so the {language} pages "
            f"show the theme's new wording untranslated: find it and update HARD_CODED"
            for language, replacements in HARD_CODED.items() for english in replacements
            if not any(english in text for text in templates.values())]


# --- execution_cache.py runs jupyter-cache's parallel executor with its own copy of the worker.

KILLED_KERNEL_EDIT = '            shutdown_kernel="immediate",\n'  # the one line our copy adds
LOCAL_PARALLEL = "jupyter_cache.executors.basic:JupyterExecutorLocalMproc"  # what ParallelExecutor extends


def jupyter_cache_parallel_worker() -> SimpleNamespace:
    """What execution_cache.py's ParallelExecutor relies on, read from the installed jupyter-cache and nbclient."""
    from importlib.metadata import entry_points

    from jupyter_cache.executors.basic import ExecutionWorkerLocalMProc, JupyterExecutorLocalMproc
    from jupyter_cache.executors.utils import single_nb_execution
    from nbclient import NotebookClient

    parameters = inspect.signature(single_nb_execution).parameters.values()
    return SimpleNamespace(
        execute=inspect.getsource(ExecutionWorkerLocalMProc.execute),
        run_and_cache=inspect.getsource(JupyterExecutorLocalMproc.run_and_cache),
        passes_keywords_on=any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters),
        shutdown_modes=tuple(NotebookClient.shutdown_kernel.values),
        local_parallel=[point.value for point in entry_points(group="jcache.executors", name="local-parallel")],
    )


@_workaround(
    "jupyter-cache-worker", "conf/book_extensions/execution_cache.py", "jupyter-cache nbclient",
    "jupyter-cache's local-parallel executor is still JupyterExecutorLocalMproc, which makes its worker from "
    "_EXECUTION_WORKER; that worker's execute is still, but for shutdown_kernel, what KernelKilledWhenDone.execute "
    "repeats; single_nb_execution still passes keywords on to nbclient, which still knows shutdown_kernel='immediate'",
)
def _parallel_worker_copy_matches(upstream=None) -> list[str]:
    """upstream: what jupyter_cache_parallel_worker() reads. Were shutdown_kernel refused, every page would
    fail ahead of Sphinx and be executed again by Sphinx, one at a time: slower, and no test would fail."""
    from book_extensions.execution_cache import KernelKilledWhenDone

    found = upstream or jupyter_cache_parallel_worker()
    problems = []
    if found.local_parallel != [LOCAL_PARALLEL]:
        problems.append(f"jupyter-cache's local-parallel executor is now {found.local_parallel}, not the "
                        f"{LOCAL_PARALLEL} that ParallelExecutor extends")
    if "self._EXECUTION_WORKER()" not in found.run_and_cache:
        problems.append("JupyterExecutorLocalMproc.run_and_cache no longer makes its worker from _EXECUTION_WORKER: "
                        "ParallelExecutor's worker is not used")
    if not found.passes_keywords_on:
        problems.append("single_nb_execution no longer passes keywords on to nbclient: shutdown_kernel would fail "
                        "every page")
    if "immediate" not in found.shutdown_modes:
        problems.append(f"nbclient's shutdown_kernel no longer offers 'immediate' (it offers {found.shutdown_modes})")
    if KILLED_KERNEL_EDIT in found.execute:
        return problems + ["jupyter-cache's worker now kills the kernel itself: remove our copy"]
    expected = inspect.getsource(KernelKilledWhenDone.execute).replace(KILLED_KERNEL_EDIT, "")
    if found.execute != expected:
        diff = "\n".join(difflib.unified_diff(expected.splitlines(), found.execute.splitlines(),
                                              "ours minus shutdown_kernel", "jupyter-cache", lineterm=""))
        problems.append(f"jupyter-cache's ExecutionWorkerLocalMProc.execute changed since our copy was made: copy it "
                        f"again with shutdown_kernel=\"immediate\"\n{diff}")
    return problems


# --- conf/search-scorer.js replaces Sphinx's whole Scorer, so it repeats Sphinx's default weights.

SEARCHTOOLS = ("sphinx", "themes", "basic", "static", "searchtools.js")
SCORE_RESULT = re.compile(r"const\s*\[([^\]]*)\]\s*=\s*result")
# Node runs the script with the page's helpers stubbed and prints its Scorer's weights.
PRINT_WEIGHTS = """var _ready = () => {{}};
{script}
process.stdout.write(JSON.stringify(Scorer, (key, value) => typeof value === "function" ? undefined : value));"""


def scorer_weights(script: str) -> dict:
    """The weights of the Scorer a search script defines, as the browser would read them."""
    run = subprocess.run(["node"], input=PRINT_WEIGHTS.format(script=script), capture_output=True, text=True,
                         timeout=60)
    if run.returncode:
        raise ValueError(run.stderr.strip().splitlines()[-1] if run.stderr.strip() else f"exit {run.returncode}")
    return json.loads(run.stdout)


@_workaround(
    "search-scorer-defaults", "conf/search-scorer.js", "sphinx",
    "Sphinx's default Scorer weights are the ones our Scorer repeats, and its score() receives "
    "[docname, title, anchor, descr, score, …]",
)
def _scorer_repeats_sphinx_defaults(upstream=None) -> list[str]:
    """upstream: the text of Sphinx's searchtools.js."""
    if upstream is None:
        upstream = _package_file(*SEARCHTOOLS[:1]).joinpath(*SEARCHTOOLS[1:]).read_text(encoding="utf-8")
    ours_text = (book_settings.CONF / "search-scorer.js").read_text(encoding="utf-8")
    try:
        theirs, ours = scorer_weights(upstream), scorer_weights(ours_text)
    except ValueError as error:
        return [f"Node cannot read the Scorer of Sphinx's searchtools.js or of ours ({error}): check "
                "html_search_scorer by hand"]
    problems = []
    if theirs != ours:
        differing = {name: (theirs.get(name), ours.get(name)) for name in sorted(theirs.keys() | ours.keys())
                     if theirs.get(name) != ours.get(name)}
        problems.append(f"Sphinx's default Scorer weights differ from our copy's, as name: (Sphinx's, ours): "
                        f"{differing}; ours replaces Sphinx's whole Scorer, so copy its weights again")
    # Sphinx documents the result's layout only in the comment above its default Scorer.
    their_fields, our_fields = ([field.strip() for field in match.group(1).split(",")] if match else []
                                for match in (SCORE_RESULT.search(upstream), SCORE_RESULT.search(ours_text)))
    if not our_fields or their_fields[:len(our_fields)] != our_fields:
        problems.append(f"Sphinx's searchtools.js documents score()'s result as {their_fields}, our score() "
                        f"unpacks {our_fields}: unpack what Sphinx now passes")
    return problems


# --- zh_search.py works around sphinx-doc/sphinx#14229 (a zh search script that throws).

STEMMER_ASSIGNMENT = re.compile(r"window\.Stemmer\s*=\s*(\w+)\s*;")


def _zh_stemmer_code(language) -> str:
    """What Sphinx writes into language_data.js for a search language."""
    from sphinx.search import IndexBuilder

    return IndexBuilder.get_js_stemmer_code(SimpleNamespace(lang=language))


def _assigned_but_undefined(code: str) -> list[str]:
    return [name for name in STEMMER_ASSIGNMENT.findall(code)
            if not re.search(rf"\b(?:var|let|const|class|function)\s+{name}\b", code)]


@_workaround(
    "zh-stemmer-bug", "conf/book_extensions/zh_search.py", "sphinx",
    "Sphinx's zh search script still assigns window.Stemmer a class it does not define (sphinx-doc/sphinx#14229)",
)
def _zh_search_still_broken(upstream=None) -> list[str]:
    """upstream: the stemmer code Sphinx writes for its own zh search language."""
    from sphinx.search.zh import SearchChinese

    from book_extensions.zh_search import SearchChineseWithItsStemmer

    try:
        theirs = _zh_stemmer_code(SearchChinese) if upstream is None else upstream
        ours = _zh_stemmer_code(SearchChineseWithItsStemmer)
    except Exception as error:  # an internal method: any change in it is news
        return [f"Sphinx's IndexBuilder.get_js_stemmer_code no longer works as assumed ({error!r}): "
                "check the zh search page by hand"]
    if not STEMMER_ASSIGNMENT.search(theirs):
        return ["Sphinx's zh stemmer code no longer assigns window.Stemmer: check the zh search page by hand"]
    problems = []
    if not _assigned_but_undefined(theirs):
        problems.append("Sphinx's zh search now defines the stemmer it assigns (sphinx-doc/sphinx#14229 is "
                        "fixed), so the workaround is no longer needed: remove it and its line in conf.py")
    if missing := _assigned_but_undefined(ours):
        problems.append(f"with the workaround, the zh search script still assigns undefined {missing}")
    return problems


# --- conf/kernel_startup.py hands ipykernel whole lines only, because of how myst-nb merges streams.

SPLIT_LINE = [{"output_type": "stream", "name": "stdout", "text": "penalty: RuntimeError"},
              {"output_type": "stream", "name": "stdout", "text": "\nloss: 0\n"}]


@_workaround(
    "myst-nb-split-lines", "conf/kernel_startup.py", "myst-nb",
    "myst-nb's coalesce_streams still renders a line that reached the notebook in two pieces as a line break "
    "and an empty line (it strips each piece and ends it with a newline), so the docs kernels must send whole lines",
)
def _split_line_problems(upstream) -> list[str]:
    """upstream: myst-nb's coalesce_streams."""
    import copy

    from nbformat import from_dict

    if upstream is None:
        try:
            from myst_nb.core.utils import coalesce_streams as upstream
        except ImportError as error:
            return [f"myst-nb's coalesce_streams is gone ({error}): check a page whose output has several lines"]
    merged = upstream([from_dict(copy.deepcopy(output)) for output in SPLIT_LINE])
    if [output["text"] for output in merged] == ["penalty: RuntimeError\nloss: 0\n"]:
        return ["myst-nb now merges a split line correctly: the whole-line buffering in conf/kernel_startup.py "
                "is no longer needed (keep the output limit)"]
    if [output["text"] for output in merged] != ["penalty: RuntimeError\n\nloss: 0\n"]:
        return [f"myst-nb's coalesce_streams now merges the split line as {merged!r}: check the kernel startup"]
    return []


# --- notebooks.py reads the notebook myst-nb staged for a page and treats its outputs as myst-nb does.

STAGING_LINE = "Path(app.outdir).parent.joinpath(OUTPUT_FOLDER)"  # in myst_nb.sphinx_ext: the folder
NAMING_LINE = 'ipynb_path = path[:-1] + [path[-1] + ".ipynb"]'  # in myst_nb.sphinx_: <docname>.ipynb in it


def glue_output(name: str, value, display: bool) -> dict | None:
    """The output myst-nb's glue(name, value, display) leaves in a notebook: its call of IPython's
    display(), caught (None if it made none)."""
    import nbformat
    from myst_nb.ext import glue as glue_module

    caught = []
    original = glue_module.ipy_display
    glue_module.ipy_display = lambda data, raw=False, metadata=None: caught.append(
        nbformat.v4.new_output("display_data", data=data, metadata=metadata or {}))
    try:
        glue_module.glue(name, value, display=display)
    finally:
        glue_module.ipy_display = original
    return caught[0] if caught else None


def staged_notebook_texts() -> dict:
    """What the staged-notebook canary reads from the installed myst-nb: the sources of its sphinx_ext
    and sphinx_ modules, and its extract_glue_data_cell."""
    import myst_nb.sphinx_
    import myst_nb.sphinx_ext
    from myst_nb.ext.glue import extract_glue_data_cell

    return {"sphinx_ext": inspect.getsource(myst_nb.sphinx_ext), "sphinx_": inspect.getsource(myst_nb.sphinx_),
            "extract": extract_glue_data_cell}


@_workaround(
    "staged-notebook", "conf/book_extensions/notebooks.py", "myst-nb",
    "myst-nb stages each page as <outdir>/../jupyter_execute/<docname>.ipynb (sphinx_ext.OUTPUT_FOLDER), and "
    "its extract_glue_data_cell drops from a cell, in place, the outputs of glue(display=False) only",
)
def _staged_notebook_as_notebooks_reads_it(upstream=None) -> list[str]:
    """upstream: what staged_notebook_texts() reads."""
    import nbformat

    found = upstream or staged_notebook_texts()
    problems = [f"myst_nb.{module} no longer has `{line}`: the notebooks' code cells may be read from the wrong "
                "place, or not found" for module, line in (("sphinx_ext", STAGING_LINE), ("sphinx_", NAMING_LINE))
                if line not in found[module]]
    printed = nbformat.v4.new_output("stream", name="stdout", text="seen\n")
    hidden, shown = glue_output("hidden", 1, display=False), glue_output("shown", 2, display=True)
    if hidden is None or shown is None:
        return [*problems, "myst-nb's glue() no longer calls myst_nb.ext.glue.ipy_display, where this canary "
                "catches what it leaves in a notebook: look at glue() and update upstream.glue_output"]
    cell = nbformat.v4.new_code_cell("", outputs=[printed, hidden, shown])
    found["extract"](cell)
    if cell.outputs != [printed, shown]:
        problems.append("extract_glue_data_cell left a cell printing 'seen' and gluing 'hidden' (display=False) and "
                        f"'shown' (display=True) with the outputs {[dict(output) for output in cell.outputs]}, not the "
                        "first and the last: the notebooks may show what the pages hide, or hide what they show")
    return problems


# --- badges.py and snippet_cells.py read myst-nb's execution record of a page.

@_workaround(
    "myst-nb-exec-data", "conf/book_extensions/badges.py", "myst-nb",
    "myst-nb's execution record of a page (NbMetadataCollector.get_exec_data) has succeeded, mtime and runtime "
    "(badges.py) and the failed run's traceback (snippet_cells.py)",
)
def _exec_data(upstream=None) -> list[str]:
    """upstream: myst-nb's ExecutionResult (a TypedDict), the declared shape of the record."""
    from myst_nb.sphinx_ import NbMetadataCollector

    if upstream is None:
        from myst_nb.core.execute import ExecutionResult as upstream
    problems = [f"myst-nb's execution record (ExecutionResult) has no key {key!r} any more"
                for key in ("succeeded", "mtime", "runtime", "traceback")
                if key not in getattr(upstream, "__annotations__", {})]
    try:
        inspect.signature(NbMetadataCollector.get_exec_data).bind(None, "docname")
    except (AttributeError, TypeError) as error:
        problems.append(f"myst-nb's NbMetadataCollector.get_exec_data(env, docname) is gone ({error})")
    return problems


# --- snippet_cells.py finds the failing snippet line in IPython's traceback text.

RAISING_CELLS = ["print('fine')", "import math\n\nratio = math.pi / 0\nprint(ratio)\n"]
RAISED = ("ZeroDivisionError: float division by zero", (2, 3))  # the second cell, its line 3


def failed_run_traceback() -> str:
    """The traceback text myst-nb records when a cell raises, from a real kernel run of RAISING_CELLS,
    by the function myst-nb's cache mode executes notebooks with."""
    import nbformat
    from jupyter_cache.executors.utils import single_nb_execution

    notebook = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "python3"}})
    notebook.cells = [nbformat.v4.new_code_cell(code) for code in RAISING_CELLS]
    with tempfile.TemporaryDirectory() as cwd:
        result = single_nb_execution(notebook, cwd=cwd, timeout=120, allow_errors=False)
    return result.exc_string or ""


@_workaround(
    "ipython-traceback", "conf/book_extensions/snippet_cells.py", "ipython",
    "IPython names a failing cell's frame `Cell In[<execution count>], line <n>` and ends with the error line",
)
def _traceback_still_parsed(upstream=None) -> list[str]:
    """upstream: the traceback text of a failed run of RAISING_CELLS."""
    from book_extensions.snippet_cells import ANSI, parse_traceback

    traceback = failed_run_traceback() if upstream is None else upstream
    found = parse_traceback(traceback)
    if found == RAISED:
        return []
    return [f"parse_traceback finds {found} in the traceback of a failed run of RAISING_CELLS, not {RAISED}: "
            "IPython's traceback format changed, so a raising snippet would be named by its page only:\n"
            + ANSI.sub("", traceback)[-1500:]]


# --- icon_masks.py draws the theme's icons as CSS masks, from its fontawesome.js and stylesheet.

THEME = ("pydata_sphinx_theme", "theme", "pydata_sphinx_theme")


def theme_texts() -> dict[str, str]:
    from book_extensions.icon_masks import FONTAWESOME_JS, THEME_STATIC, THEME_STYLESHEET

    return {"bundle": FONTAWESOME_JS.read_text(encoding="utf-8"),
            "stylesheet": THEME_STYLESHEET.read_text(encoding="utf-8"),
            "theme_script": theme_script_source(THEME_STATIC / "scripts" / "pydata-sphinx-theme.js.map")}


def theme_script_source(source_map: Path) -> str:
    """pydata-sphinx-theme.js before minifying, from the source map the theme ships ("" if it has none)."""
    try:
        found = json.loads(source_map.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    return "".join(text or "" for name, text in zip(found.get("sources", []), found.get("sourcesContent", []))
                   if name.endswith("/pydata-sphinx-theme.js"))


@_workaround(
    "icon-masks", "conf/book_extensions/icon_masks.py", "pydata-sphinx-theme",
    "pydata-sphinx-theme's fontawesome.js holds each style's icons as `var b={name:[w,h,[aliases],unicode,path]}` "
    "then `p(\"fas\",b)`; its stylesheet draws icons from `--pst-icon-…` variables in rules set in "
    "`var(--fa-font-…)`, and gives each icon class its glyph in a rule of its own, `.fa-NAME{--fa:\"…\"}`",
)
def _icons_as_masks(upstream=None) -> list[str]:
    """upstream: theme_texts(), of which this reads the bundle and the stylesheet."""
    from sphinx.errors import ConfigError

    from book_extensions.icon_masks import icon_paths, stylesheet_icons_css, stylesheet_without_icon_glyphs

    upstream = theme_texts() if upstream is None else upstream
    try:
        stylesheet_icons_css(upstream["stylesheet"], icon_paths(upstream["bundle"]))
        stylesheet_without_icon_glyphs(upstream["stylesheet"])
    except ConfigError as error:
        return [f"{error}: the build now stops; look at how the theme draws its icons now"]
    return []


# --- conf/_templates holds copies of pydata-sphinx-theme's templates with a few edits.

JINJA_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)
# (the theme's template, its block or None for the whole file, our copy, [(the theme's text, ours)])
TEMPLATE_COPIES = [
    ("components/search-button-field.html", None, "search-button-field.html",
     [(" aria-label=\"{{ _('Search') }}\"", "")]),
    ("layout.html", "css", "layout.html", [
        ('    document.documentElement.dataset.theme = localStorage.getItem("theme") || "{{ default_mode }}";\n',
         '    document.documentElement.dataset.theme = ["light", "dark"].includes(document.documentElement.dataset.mode)'
         ' ? document.documentElement.dataset.mode : matchMedia("(prefers-color-scheme: dark)").matches ? "dark"'
         ' : "light";\n'),
        ("  {{ _webpack.head_js_preload() }}\n", "")]),
    ("layout.html", "extrahead", "layout.html", [
        ("""  {% if pagename == 'search' %}
    {# Search tools are already loaded on search page. Don't load them twice. #}
  {% else %}
    {# Load Sphinx's built-in search tools so that our custom inline search
       experience can work on any page. #}
    <script src="{{ pathto('_static/searchtools.js', 1) | e }}"></script>
    <script src="{{ pathto('_static/language_data.js', 1) | e }}"></script>
    <script src="{{ pathto('searchindex.js', 1) | e }}"></script>
  {% endif %}
""", "")]),
]
# The lines of setTheme(mode) in pydata-sphinx-theme.js that the css block's data-theme line repeats.
SET_THEME = ('if (mode !== "light" && mode !== "dark" && mode !== "auto") {',
             'var colorScheme = prefersDark.matches ? "dark" : "light";',
             'var theme = mode == "auto" ? colorScheme : mode;',
             'document.documentElement.dataset.theme = theme;')


def _block(text: str, block: str | None) -> str | None:
    if block is None:
        return text
    found = re.search(rf"\{{%-? block {block} %\}}(.*?)\{{%-? endblock {block} %\}}", text, re.DOTALL)
    return found and found.group(1)


@_workaround(
    "theme-template-copies", "conf/_templates", "pydata-sphinx-theme",
    "pydata-sphinx-theme's templates that conf/_templates copies (search-button-field.html, layout.html's css and "
    "extrahead blocks) are still, but for the edits of upstream.TEMPLATE_COPIES, what our copies were made "
    "from, and setTheme(mode) in pydata-sphinx-theme.js resolves the colour theme as our css block does",
)
def _template_copies_match(upstream=None) -> list[str]:
    """upstream: {template path under the theme: text}; None reads the installed theme's."""
    problems = []
    for template, block, copy, edits in TEMPLATE_COPIES:
        theirs_path = _package_file(*THEME[:1]).joinpath(*THEME[1:], template)
        theirs = (upstream or {}).get(template) or (theirs_path.read_text(encoding="utf-8")
                                                   if theirs_path.is_file() else "")
        where = f"{template}" + (f"'s block {block}" if block else "")
        ours = _block((book_settings.CONF / "_templates" / copy).read_text(encoding="utf-8"), block)
        if (expected := _block(theirs, block)) is None or not theirs:
            problems.append(f"the theme has no {where} any more, so conf/_templates/{copy} replaces nothing")
            continue
        for old, new in edits:
            if old not in expected:
                problems.append(f"the theme's {where} no longer has {old.strip()!r}: if that was what our copy "
                                f"fixes, remove the edit, else copy it again with the edit")
            expected = expected.replace(old, new)
        expected, ours = (JINJA_COMMENT.sub("", text).strip() for text in (expected, ours or ""))
        if expected != ours:
            diff = "\n".join(difflib.unified_diff(ours.splitlines(), expected.splitlines(), "ours", "theirs, edited",
                                                  lineterm=""))
            problems.append(f"the theme's {where} changed since conf/_templates/{copy} was made from it: copy it "
                            f"again with the edits of upstream.TEMPLATE_COPIES\n{diff}")
    script = (upstream or {}).get("theme_script") or theme_texts()["theme_script"]
    if missing := [line for line in SET_THEME if line not in script]:
        problems.append(f"setTheme() in pydata-sphinx-theme.js (from its source map) no longer has {missing}: it may "
                        "pick the colour theme otherwise than the css block's head script, and the browser then "
                        "restyles the whole page once it runs")
    return problems


# --- deferred_scripts.py rebuilds each script_files entry with defer.

@_workaround(
    "sphinx-script-files", "conf/book_extensions/deferred_scripts.py", "sphinx",
    "the html-page-context's script_files are Sphinx's _JavaScript objects: filename, priority and "
    "attributes, rebuilt by type(script)(filename, priority=…, **attributes)",
)
def _script_files_can_be_deferred(upstream=None) -> list[str]:
    """upstream: Sphinx's class for a script_files entry."""
    from book_extensions.deferred_scripts import defer_scripts

    if upstream is None:
        from sphinx.builders.html._assets import _JavaScript as upstream
    context = {"script_files": [upstream("_static/doctools.js", priority=200, id="docs"), upstream(None, body="x = 1;")]}
    try:
        defer_scripts(None, "page", "page.html", context, None)
        deferred, inline = context["script_files"]
        ok = (deferred.filename == "_static/doctools.js" and deferred.priority == 200
              and deferred.attributes == {"id": "docs", "defer": "defer"} and inline.attributes == {"body": "x = 1;"})
    except (AttributeError, TypeError) as error:
        return [f"defer_scripts fails on Sphinx's script_files entries: {error!r}"]
    found = [(script.filename, script.attributes) for script in context["script_files"]]
    return [] if ok else [f"defer_scripts no longer defers Sphinx's script_files entries: {found}"]
