"""Canaries of the workarounds that rely on how myst-parser, myst-nb, jupyter-cache, nbclient and IPython
read a page as a notebook, run it and record the run."""

from __future__ import annotations

import difflib
import importlib
import inspect
import tempfile
from types import SimpleNamespace

import book_settings
from book_extensions.upstream.registry import workaround


# --- pages.py reads code cells with myst-parser's internals, as myst-nb does.

MYST_INTERNALS = {  # name: (module, arguments as pages.py, or for myst-nb's reader this check, passes them)
    "create_md_parser": ("myst_parser.parsers.mdit", ((None, None), {})),
    "parse_directive_text": ("myst_parser.parsers.directives", ((None, "", ""), {"validate_options": False})),
    "read_myst_markdown_notebook": (
        "myst_nb.core.read",
        (("",), {"config": None, "add_source_map": True, "path": None}),
    ),
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


@workaround(
    "myst-parser-internals",
    "conf/book_extensions/pages.py",
    "myst-parser myst-nb",
    "myst-parser's create_md_parser and parse_directive_text (internal API) still take the arguments "
    "pages.py passes, and the page model finds the code cells (line, options, tags, code) myst-nb reads",
)
def _code_cells_as_myst_nb_reads(upstream=None) -> list[str]:
    """upstream: a namespace holding the three functions of MYST_INTERNALS."""
    functions, problems = {}, []
    for name, (module, (args, kwargs)) in MYST_INTERNALS.items():
        try:
            functions[name] = (
                getattr(importlib.import_module(module), name) if upstream is None else getattr(upstream, name)
            )
            inspect.signature(functions[name]).bind(*args, **kwargs)
        except (ImportError, AttributeError, TypeError) as error:
            problems.append(
                f"{module}.{name} is gone or takes other arguments ({error}): "
                "read the code cells the way the installed myst-nb does"
            )
    if problems:
        return problems

    from myst_parser.config.main import MdParserConfig

    from book_extensions import pages

    config = MdParserConfig(enable_extensions=set(book_settings.MYST_EXTENSIONS))  # conf.py's, as Sphinx reads pages
    samples = [
        (pages.relative(page.path), page.path, page.text)
        for language in book_settings.LANGUAGES
        for page in pages.book_pages(language).values()
    ]
    for name, path, text in [*samples, ("notebook_stack.CELL_SAMPLE", None, CELL_SAMPLE)]:
        page = pages.read_page(path or book_settings.CONF / "cell-sample.md", text)
        ours = [
            (
                cell.line,
                cell.options,
                cell.tags,
                cell.snippet.read_text() if cell.snippet and cell.snippet.is_file() else cell.body,
            )
            for cell in page.code_cells
        ]
        try:
            notebook = functions["read_myst_markdown_notebook"](text, config=config, add_source_map=True, path=path)
        except Exception as error:  # a page's own problems (a missing :load: file) fail the build anyway
            problems.append(f"myst-nb cannot read {name}: {error!r}")
            continue
        theirs = [
            (line, dict(cell.metadata), list(cell.metadata.get("tags", [])), cell.source)
            for cell, line in zip(notebook.cells, notebook.metadata["source_map"])
            if cell.cell_type == "code"
        ]
        if ours != theirs:
            first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
            cell_of = lambda cells: cells[first][:3] if first < len(cells) else None  # noqa: E731
            problems.append(
                f"in {name}, the page model finds {len(ours)} code cell(s), myst-nb reads {len(theirs)}; "
                f"the first that differs (line, options, tags): ours {cell_of(ours)}, myst-nb's {cell_of(theirs)}"
                + ("; their code differs" if cell_of(ours) == cell_of(theirs) else "")
            )
    return problems


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


@workaround(
    "jupyter-cache-worker",
    "conf/book_extensions/execution_cache.py",
    "jupyter-cache nbclient",
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
        problems.append(
            f"jupyter-cache's local-parallel executor is now {found.local_parallel}, not the "
            f"{LOCAL_PARALLEL} that ParallelExecutor extends"
        )
    if "self._EXECUTION_WORKER()" not in found.run_and_cache:
        problems.append(
            "JupyterExecutorLocalMproc.run_and_cache no longer makes its worker from _EXECUTION_WORKER: "
            "ParallelExecutor's worker is not used"
        )
    if not found.passes_keywords_on:
        problems.append(
            "single_nb_execution no longer passes keywords on to nbclient: shutdown_kernel would fail every page"
        )
    if "immediate" not in found.shutdown_modes:
        problems.append(f"nbclient's shutdown_kernel no longer offers 'immediate' (it offers {found.shutdown_modes})")
    if KILLED_KERNEL_EDIT in found.execute:
        return problems + ["jupyter-cache's worker now kills the kernel itself: remove our copy"]
    expected = inspect.getsource(KernelKilledWhenDone.execute).replace(KILLED_KERNEL_EDIT, "")
    if found.execute != expected:
        diff = "\n".join(
            difflib.unified_diff(
                expected.splitlines(),
                found.execute.splitlines(),
                "ours minus shutdown_kernel",
                "jupyter-cache",
                lineterm="",
            )
        )
        problems.append(
            f"jupyter-cache's ExecutionWorkerLocalMProc.execute changed since our copy was made: copy it "
            f'again with shutdown_kernel="immediate"\n{diff}'
        )
    return problems


# --- conf/kernel_startup.py hands ipykernel whole lines only, because of how myst-nb merges streams.

SPLIT_LINE = [
    {"output_type": "stream", "name": "stdout", "text": "penalty: RuntimeError"},
    {"output_type": "stream", "name": "stdout", "text": "\nloss: 0\n"},
]


@workaround(
    "myst-nb-split-lines",
    "conf/kernel_startup.py",
    "myst-nb",
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
        return [
            "myst-nb now merges a split line correctly: the whole-line buffering in conf/kernel_startup.py "
            "is no longer needed (keep the output limit)"
        ]
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
        nbformat.v4.new_output("display_data", data=data, metadata=metadata or {})
    )
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

    return {
        "sphinx_ext": inspect.getsource(myst_nb.sphinx_ext),
        "sphinx_": inspect.getsource(myst_nb.sphinx_),
        "extract": extract_glue_data_cell,
    }


@workaround(
    "staged-notebook",
    "conf/book_extensions/notebooks.py",
    "myst-nb",
    "myst-nb stages each page as <outdir>/../jupyter_execute/<docname>.ipynb (sphinx_ext.OUTPUT_FOLDER), and "
    "its extract_glue_data_cell drops from a cell, in place, the outputs of glue(display=False) only",
)
def _staged_notebook_as_notebooks_reads_it(upstream=None) -> list[str]:
    """upstream: what staged_notebook_texts() reads."""
    import nbformat

    found = upstream or staged_notebook_texts()
    problems = [
        f"myst_nb.{module} no longer has `{line}`: the notebooks' code cells may be read from the wrong "
        "place, or not found"
        for module, line in (("sphinx_ext", STAGING_LINE), ("sphinx_", NAMING_LINE))
        if line not in found[module]
    ]
    printed = nbformat.v4.new_output("stream", name="stdout", text="seen\n")
    hidden, shown = glue_output("hidden", 1, display=False), glue_output("shown", 2, display=True)
    if hidden is None or shown is None:
        return [
            *problems,
            "myst-nb's glue() no longer calls myst_nb.ext.glue.ipy_display, where this canary "
            "catches what it leaves in a notebook: look at glue() and update notebook_stack.glue_output",
        ]
    cell = nbformat.v4.new_code_cell("", outputs=[printed, hidden, shown])
    found["extract"](cell)
    if cell.outputs != [printed, shown]:
        problems.append(
            "extract_glue_data_cell left a cell printing 'seen' and gluing 'hidden' (display=False) and "
            f"'shown' (display=True) with the outputs {[dict(output) for output in cell.outputs]}, not the "
            "first and the last: the notebooks may show what the pages hide, or hide what they show"
        )
    return problems


# --- badges.py and snippet_cells.py read myst-nb's execution record of a page.


@workaround(
    "myst-nb-exec-data",
    "conf/book_extensions/badges.py",
    "myst-nb",
    "myst-nb's execution record of a page (NbMetadataCollector.get_exec_data) has succeeded, mtime and runtime "
    "(badges.py) and the failed run's traceback (snippet_cells.py)",
)
def _exec_data(upstream=None) -> list[str]:
    """upstream: myst-nb's ExecutionResult (a TypedDict), the declared shape of the record."""
    from myst_nb.sphinx_ import NbMetadataCollector

    if upstream is None:
        from myst_nb.core.execute import ExecutionResult as upstream
    problems = [
        f"myst-nb's execution record (ExecutionResult) has no key {key!r} any more"
        for key in ("succeeded", "mtime", "runtime", "traceback")
        if key not in getattr(upstream, "__annotations__", {})
    ]
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


@workaround(
    "ipython-traceback",
    "conf/book_extensions/snippet_cells.py",
    "ipython",
    "IPython names a failing cell's frame `Cell In[<execution count>], line <n>` and ends with the error line",
)
def _traceback_still_parsed(upstream=None) -> list[str]:
    """upstream: the traceback text of a failed run of RAISING_CELLS."""
    from book_extensions.snippet_cells import ANSI, parse_traceback

    traceback = failed_run_traceback() if upstream is None else upstream
    found = parse_traceback(traceback)
    if found == RAISED:
        return []
    return [
        f"parse_traceback finds {found} in the traceback of a failed run of RAISING_CELLS, not {RAISED}: "
        "IPython's traceback format changed, so a raising snippet would be named by its page only:\n"
        + ANSI.sub("", traceback)[-1500:]
    ]
