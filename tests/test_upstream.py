"""Every workaround of another package's internals has a canary, and each canary can fail.

Each check of ``book_extensions.upstream`` must find nothing wrong with the installed packages,
and must fail, naming the workaround's file, when given a simulated upgrade: a modified copy of
the upstream text or object that breaks (or fixes) what the workaround relies on.
"""

import re
from types import SimpleNamespace
from typing import TypedDict

import pytest
from myst_nb.core.execute import ExecutionResult
from myst_nb.core.read import read_myst_markdown_notebook
from myst_parser.parsers.directives import parse_directive_text
from myst_parser.parsers.mdit import create_md_parser

import book_settings
from book_extensions.chrome import HARD_CODED
from book_extensions.snippet_cells import ANSI
from book_extensions.upstream import WORKAROUNDS, notebook_stack, sphinx_internals, theme_internals
from book_extensions.upstream.registry import package_file
from test_locked_install import pins

# Every torch's lock pins the same release of each package the workarounds read (the test below), so
# their canaries run with the default torch only, like the other machinery tests.
pytestmark = pytest.mark.torch_independent  # see pyproject.toml's markers
# The packages the canaries read, and those the kernels that run them are made of.
PATCHED = sorted(
    {package for workaround in WORKAROUNDS.values() for package in workaround.packages}
    | {"nbformat", "jupyter-client", "ipykernel"}
)


@pytest.fixture(scope="module")
def failed_run():
    return notebook_stack.failed_run_traceback()


def read_counting_lines_from_zero(text, **options):
    notebook = read_myst_markdown_notebook(text, **options)
    notebook.metadata["source_map"] = [line - 1 for line in notebook.metadata["source_map"]]
    return notebook


def parse_directive_text_without_validate_options(directive_class, first_line, content, *, line=None):
    return parse_directive_text(directive_class, first_line, content, line=line)


def myst(**replaced):
    return SimpleNamespace(
        **{
            "create_md_parser": create_md_parser,
            "parse_directive_text": parse_directive_text,
            "read_myst_markdown_notebook": read_myst_markdown_notebook,
            **replaced,
        }
    )


def themes_with(old, new):
    templates = theme_internals.theme_templates()
    return {path: text.replace(old, new) for path, text in templates.items()}


def theme_template(template, old, new):
    """The theme's templates as the theme-template-copies canary reads them, one edited."""
    path = package_file(theme_internals.THEME[0]).joinpath(*theme_internals.THEME[1:], template)
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    return {template: text.replace(old, new)}


def searchtools(old, new):
    text = package_file(sphinx_internals.SEARCHTOOLS[0]).joinpath(*sphinx_internals.SEARCHTOOLS[1:]).read_text()
    assert old in text
    return text.replace(old, new)


def zh_stemmer_code_fixed_upstream():
    """What sphinx-doc/sphinx#14416 makes Sphinx write: the class named after the stemmer's file."""
    from sphinx.search.zh import SearchChinese

    code = sphinx_internals.zh_stemmer_code(SearchChinese)
    assert "window.Stemmer = ChineseStemmer;" in code
    return code.replace("window.Stemmer = ChineseStemmer;", "window.Stemmer = EnglishStemmer;")


def execution_result_without(key, instead):
    fields = {name: hint for name, hint in ExecutionResult.__annotations__.items() if name != key}
    return TypedDict("ExecutionResult", {**fields, instead: "str | None"})


def ipython_7_traceback(real):
    """The same failure as IPython 7 printed it: the cell named by its input file, no line number."""
    text = ANSI.sub("", real)
    assert "Cell In[2], line 3" in text
    return re.sub(r"Cell In\[(\d+)\], line \d+", r"<ipython-input-\1-5f3b2c0a9e1d> in <module>", text)


# (workaround, what the simulated upgrade does, the modified upstream, a phrase its problem must hold)
SIMULATIONS = [
    (
        "myst-parser-internals",
        "myst-nb counts cell lines from 0",
        lambda _: myst(read_myst_markdown_notebook=read_counting_lines_from_zero),
        "the page model finds",
    ),
    (
        "myst-parser-internals",
        "parse_directive_text drops validate_options",
        lambda _: myst(parse_directive_text=parse_directive_text_without_validate_options),
        "parse_directive_text is gone or takes other arguments",
    ),
    (
        "theme-hard-coded-strings",
        "the book theme translates its sidebar toggle's title",
        lambda _: themes_with('title="Toggle primary sidebar"', "title=\"{{ _('Toggle primary sidebar') }}\""),
        "'title=\"Toggle primary sidebar\"'",
    ),
    (
        "theme-template-copies",
        "the theme's search button gains a class",
        lambda _: theme_template(
            "components/search-button-field.html",
            'class="btn search-button-field',
            'class="btn btn-sm search-button-field',
        ),
        "changed since conf/_templates/search-button",
    ),
    (
        "theme-template-copies",
        "the theme names its search button by its visible text",
        lambda _: theme_template("components/search-button-field.html", " aria-label=\"{{ _('Search') }}\"", ""),
        "no longer has",
    ),
    (
        "theme-template-copies",
        "the theme loads the search scripts with defer",
        lambda _: theme_template(
            "layout.html", "<script src=\"{{ pathto('searchindex.js'", "<script defer src=\"{{ pathto('searchindex.js'"
        ),
        "no longer has",
    ),
    (
        "theme-template-copies",
        "the theme's head script guesses the colour theme another way",
        lambda _: theme_template(
            "layout.html",
            'localStorage.getItem("theme") || "{{ default_mode }}"',
            'localStorage.getItem("theme") || "{{ default_theme }}"',
        ),
        "block css no longer has",
    ),
    (
        "theme-template-copies",
        "the theme's css block loads another script",
        lambda _: theme_template(
            "layout.html", "  {{- css() }}\n", "  {{- css() }}\n  {{ _webpack.head_js_extra() }}\n"
        ),
        "block css changed since",
    ),
    (
        "theme-template-copies",
        "setTheme() follows the stored theme in auto mode",
        lambda _: theme_files(
            theme_script=(
                'var theme = mode == "auto" ? colorScheme : mode;',
                'var theme = mode == "auto" ? localStorage.getItem("theme") || colorScheme : mode;',
            )
        ),
        "setTheme() in pydata-sphinx-theme.js",
    ),
    (
        "search-scorer-defaults",
        "Sphinx raises its title weight",
        lambda _: searchtools("title: 15,", "title: 16,"),
        "default Scorer weights",
    ),
    (
        "search-scorer-defaults",
        "Sphinx adds a weight",
        lambda _: searchtools("partialTerm: 2,", "partialTerm: 2,\n    exactTerm: 9,"),
        "'exactTerm': (9, None)",
    ),
    (
        "search-scorer-defaults",
        "Sphinx passes score() the result in another order",
        lambda _: searchtools(
            "const [docname, title, anchor, descr, score,", "const [docname, title, score, anchor, descr,"
        ),
        "unpack what Sphinx now passes",
    ),
    (
        "zh-stemmer-bug",
        "Sphinx fixes its zh stemmer (sphinx-doc/sphinx#14416)",
        lambda _: zh_stemmer_code_fixed_upstream(),
        "the workaround is no longer needed: remove it",
    ),
    (
        "myst-nb-exec-data",
        "myst-nb renames mtime",
        lambda _: execution_result_without("mtime", "executed_at"),
        "'mtime'",
    ),
    (
        "myst-nb-exec-data",
        "myst-nb renames traceback",
        lambda _: execution_result_without("traceback", "exc_string"),
        "'traceback'",
    ),
    (
        "ipython-traceback",
        "IPython names a cell as IPython 7 did",
        ipython_7_traceback,
        "IPython's traceback format changed",
    ),
    (
        "myst-nb-split-lines",
        "myst-nb joins the pieces of a stream as they came",
        lambda _: coalesce_as_sent,
        "no longer needed",
    ),
    (
        "icon-masks",
        "FontAwesome registers its icon styles another way",
        lambda _: theme_files(bundle=('p("fas",b)', 'define("fas",b)')),
        "found no solid, regular and brands icons",
    ),
    (
        "icon-masks",
        "the theme's stylesheet names its icon glyphs another way",
        lambda _: theme_files(stylesheet=("--pst-icon-", "--pst-glyph-")),
        "found no icon variables",
    ),
    (
        "icon-masks",
        "FontAwesome names its glyph variable another way",
        lambda _: theme_files(stylesheet=('{--fa:"', '{--fa-glyph:"')),
        "expected at least 1000 FontAwesome rules",
    ),
    (
        "icon-masks",
        "FontAwesome gives some icons their glyph inside a longer selector",
        lambda _: theme_files(stylesheet=("}.fa-bell{", "}.navbar .fa-bell{")),
        "1 of another form",
    ),
    (
        "staged-notebook",
        "myst-nb stages the notebooks in another folder",
        lambda _: staged_notebook(sphinx_ext=(notebook_stack.STAGING_LINE, "Path(app.outdir).joinpath(OUTPUT_FOLDER)")),
        "myst_nb.sphinx_ext no longer has",
    ),
    (
        "staged-notebook",
        "myst-nb names a staged notebook otherwise",
        lambda _: staged_notebook(
            sphinx_=(notebook_stack.NAMING_LINE, 'ipynb_path = path[:-1] + [path[-1] + ".nb.ipynb"]')
        ),
        "myst_nb.sphinx_ no longer has",
    ),
    (
        "staged-notebook",
        "myst-nb's extract_glue_data_cell returns the glue data without dropping it",
        lambda _: staged_notebook(extract=lambda cell: []),
        "extract_glue_data_cell left",
    ),
    (
        "sphinx-script-files",
        "Sphinx names a script's file path instead of filename",
        lambda _: script_named_path,
        "defer_scripts fails",
    ),
    (
        "jupyter-cache-worker",
        "jupyter-cache's worker records each cell's timing",
        lambda _: parallel_worker(
            execute=(
                "allow_errors=data.allow_errors,\n",
                "allow_errors=data.allow_errors,\n            record_timing=True,\n",
            )
        ),
        "changed since our copy was made",
    ),
    (
        "jupyter-cache-worker",
        "jupyter-cache's worker kills the kernel itself",
        lambda _: parallel_worker(
            execute=(
                "allow_errors=data.allow_errors,\n",
                "allow_errors=data.allow_errors,\n" + notebook_stack.KILLED_KERNEL_EDIT,
            )
        ),
        "remove our copy",
    ),
    (
        "jupyter-cache-worker",
        "jupyter-cache's parallel executor names its worker class itself",
        lambda _: parallel_worker(run_and_cache=("self._EXECUTION_WORKER()", "ExecutionWorkerLocalMProc()")),
        "no longer makes its worker from _EXECUTION_WORKER",
    ),
    (
        "jupyter-cache-worker",
        "single_nb_execution stops passing keywords on",
        lambda _: parallel_worker(passes_keywords_on=False),
        "no longer passes keywords on",
    ),
    (
        "jupyter-cache-worker",
        "nbclient renames the immediate shutdown",
        lambda _: parallel_worker(shutdown_modes=("graceful", "now")),
        "no longer offers 'immediate'",
    ),
    (
        "jupyter-cache-worker",
        "jupyter-cache's local-parallel becomes another executor",
        lambda _: parallel_worker(local_parallel=["jupyter_cache.executors.pool:JupyterExecutorPool"]),
        "local-parallel executor is now",
    ),
]


def parallel_worker(**changed):
    """What the jupyter-cache-worker canary reads, one part changed: a source text by (old, new), a value as is."""
    found = notebook_stack.jupyter_cache_parallel_worker()
    for name, change in changed.items():
        if name in ("execute", "run_and_cache"):
            assert change[0] in getattr(found, name), (name, change[0])
            change = getattr(found, name).replace(*change)
        setattr(found, name, change)
    return found


class script_named_path:
    """A script_files entry as a Sphinx that renamed `filename` would make it."""

    def __init__(self, path, /, *, priority=500, **attributes):
        self.path, self.priority, self.attributes = path, priority, attributes


def theme_files(**replaced):
    """The theme files the icon-masks and theme-template-copies canaries read (theme_internals.theme_texts),
    one of them edited: {which: (old, new)}."""
    texts = theme_internals.theme_texts()
    for which, (old, new) in replaced.items():
        assert old in texts[which], (which, old)
        texts[which] = texts[which].replace(old, new)
    return texts


def staged_notebook(extract=None, **edited):
    """What the staged-notebook canary reads from myst-nb (staged_notebook_texts), with a module's source
    edited ({"sphinx_ext" or "sphinx_": (old, new)}) or extract_glue_data_cell replaced."""
    found = notebook_stack.staged_notebook_texts()
    for module, (old, new) in edited.items():
        assert old in found[module], old
        found[module] = found[module].replace(old, new)
    return {**found, "extract": extract or found["extract"]}


def coalesce_as_sent(outputs):
    """A coalesce_streams that keeps the text as the kernel sent it."""
    return [{**outputs[0], "text": "".join(output["text"] for output in outputs)}]


@pytest.mark.parametrize("name", WORKAROUNDS)
def test_the_installed_packages_still_behave_as_each_workaround_assumes(name):
    problems = WORKAROUNDS[name].problems()
    assert problems == [], f"{name} ({WORKAROUNDS[name].assumes}):\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("name", "change", "broken", "phrase"), SIMULATIONS, ids=[f"{name}: {change}" for name, change, _, _ in SIMULATIONS]
)
def test_each_canary_fails_naming_its_workaround_when_upstream_changes(name, change, broken, phrase, failed_run):
    workaround = WORKAROUNDS[name]
    problems = workaround.problems(broken(failed_run))
    assert problems, f"the canary of {workaround.guards} did not notice: {change}"
    assert all(problem.startswith(f"{workaround.guards}: ") for problem in problems), problems
    assert phrase in "\n".join(problems), problems


def test_every_workaround_has_a_simulated_upgrade_and_names_a_file_that_exists():
    assert {name for name, *_ in SIMULATIONS} == set(WORKAROUNDS)
    missing = [w.guards for w in WORKAROUNDS.values() if not (book_settings.ROOT / w.guards).exists()]
    assert not missing, missing


def test_the_zh_pages_show_the_hard_coded_theme_words_translated(site):
    """The other half of the theme-hard-coded-strings canary (chrome.py's replacements): they reached the
    written pages."""
    written = "\n".join(page.read_text(encoding="utf-8") for page in sorted((site / "zh").rglob("*.html")))
    replacements = HARD_CODED["zh_CN"]
    assert [english for english in replacements if english in written] == []
    assert [zh for zh in replacements.values() if zh not in written] == []


def test_every_torch_locks_the_same_release_of_each_package_the_workarounds_read():
    pinned = {
        torch: pins(book_settings.lock_file(torch).read_text().splitlines()) for torch in book_settings.TORCH_VERSIONS
    }
    releases = {package: {torch: pins.get(package) for torch, pins in pinned.items()} for package in PATCHED}
    differing = {package: found for package, found in releases.items() if len(set(found.values())) != 1}
    assert not differing, (
        "the locks pin different releases of packages the workarounds read, so their canaries "
        f"must run with each torch (drop the torch_independent mark): {differing}"
    )
    assert all(None not in found.values() for found in releases.values()), releases
