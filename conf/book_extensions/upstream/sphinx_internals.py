"""Canaries of the workarounds that rely on Sphinx's internals: its search scripts and its script_files."""

from __future__ import annotations

import json
import re
import subprocess
from types import SimpleNamespace

import book_settings
from book_extensions.upstream.registry import package_file, workaround


# --- conf/search-scorer.js replaces Sphinx's whole Scorer, so it repeats Sphinx's default weights.

SEARCHTOOLS = ("sphinx", "themes", "basic", "static", "searchtools.js")
SCORE_RESULT = re.compile(r"const\s*\[([^\]]*)\]\s*=\s*result")
# Node runs the script with the page's helpers stubbed and prints its Scorer's weights.
PRINT_WEIGHTS = """var _ready = () => {{}};
{script}
process.stdout.write(JSON.stringify(Scorer, (key, value) => typeof value === "function" ? undefined : value));"""


def scorer_weights(script: str) -> dict:
    """The weights of the Scorer a search script defines, as the browser would read them."""
    run = subprocess.run(
        ["node"], input=PRINT_WEIGHTS.format(script=script), capture_output=True, text=True, timeout=60
    )
    if run.returncode:
        raise ValueError(run.stderr.strip().splitlines()[-1] if run.stderr.strip() else f"exit {run.returncode}")
    return json.loads(run.stdout)


@workaround(
    "search-scorer-defaults",
    "conf/search-scorer.js",
    "sphinx",
    "Sphinx's default Scorer weights are the ones our Scorer repeats, and its score() receives "
    "[docname, title, anchor, descr, score, …]",
)
def _scorer_repeats_sphinx_defaults(upstream=None) -> list[str]:
    """upstream: the text of Sphinx's searchtools.js."""
    if upstream is None:
        upstream = package_file(*SEARCHTOOLS[:1]).joinpath(*SEARCHTOOLS[1:]).read_text(encoding="utf-8")
    ours_text = (book_settings.CONF / "search-scorer.js").read_text(encoding="utf-8")
    try:
        theirs, ours = scorer_weights(upstream), scorer_weights(ours_text)
    except ValueError as error:
        return [
            f"Node cannot read the Scorer of Sphinx's searchtools.js or of ours ({error}): check "
            "html_search_scorer by hand"
        ]
    problems = []
    if theirs != ours:
        differing = {
            name: (theirs.get(name), ours.get(name))
            for name in sorted(theirs.keys() | ours.keys())
            if theirs.get(name) != ours.get(name)
        }
        problems.append(
            f"Sphinx's default Scorer weights differ from our copy's, as name: (Sphinx's, ours): "
            f"{differing}; ours replaces Sphinx's whole Scorer, so copy its weights again"
        )
    # Sphinx documents the result's layout only in the comment above its default Scorer.
    their_fields, our_fields = (
        [field.strip() for field in match.group(1).split(",")] if match else []
        for match in (SCORE_RESULT.search(upstream), SCORE_RESULT.search(ours_text))
    )
    if not our_fields or their_fields[: len(our_fields)] != our_fields:
        problems.append(
            f"Sphinx's searchtools.js documents score()'s result as {their_fields}, our score() "
            f"unpacks {our_fields}: unpack what Sphinx now passes"
        )
    return problems


# --- zh_search.py works around sphinx-doc/sphinx#14229 (a zh search script that throws).

STEMMER_ASSIGNMENT = re.compile(r"window\.Stemmer\s*=\s*(\w+)\s*;")


def zh_stemmer_code(language) -> str:
    """What Sphinx writes into language_data.js for a search language."""
    from sphinx.search import IndexBuilder

    return IndexBuilder.get_js_stemmer_code(SimpleNamespace(lang=language))


def _assigned_but_undefined(code: str) -> list[str]:
    return [
        name
        for name in STEMMER_ASSIGNMENT.findall(code)
        if not re.search(rf"\b(?:var|let|const|class|function)\s+{name}\b", code)
    ]


@workaround(
    "zh-stemmer-bug",
    "conf/book_extensions/zh_search.py",
    "sphinx",
    "Sphinx's zh search script still assigns window.Stemmer a class it does not define (sphinx-doc/sphinx#14229)",
)
def _zh_search_still_broken(upstream=None) -> list[str]:
    """upstream: the stemmer code Sphinx writes for its own zh search language."""
    from sphinx.search.zh import SearchChinese

    from book_extensions.zh_search import SearchChineseWithItsStemmer

    try:
        theirs = zh_stemmer_code(SearchChinese) if upstream is None else upstream
        ours = zh_stemmer_code(SearchChineseWithItsStemmer)
    except Exception as error:  # an internal method: any change in it is news
        return [
            f"Sphinx's IndexBuilder.get_js_stemmer_code no longer works as assumed ({error!r}): "
            "check the zh search page by hand"
        ]
    if not STEMMER_ASSIGNMENT.search(theirs):
        return ["Sphinx's zh stemmer code no longer assigns window.Stemmer: check the zh search page by hand"]
    problems = []
    if not _assigned_but_undefined(theirs):
        problems.append(
            "Sphinx's zh search now defines the stemmer it assigns (sphinx-doc/sphinx#14229 is "
            "fixed), so the workaround is no longer needed: remove it and its line in conf.py"
        )
    if missing := _assigned_but_undefined(ours):
        problems.append(f"with the workaround, the zh search script still assigns undefined {missing}")
    return problems


# --- deferred_scripts.py rebuilds each script_files entry with defer.


@workaround(
    "sphinx-script-files",
    "conf/book_extensions/deferred_scripts.py",
    "sphinx",
    "the html-page-context's script_files are Sphinx's _JavaScript objects: filename, priority and "
    "attributes, rebuilt by type(script)(filename, priority=…, **attributes)",
)
def _script_files_can_be_deferred(upstream=None) -> list[str]:
    """upstream: Sphinx's class for a script_files entry."""
    from book_extensions.deferred_scripts import defer_scripts

    if upstream is None:
        from sphinx.builders.html._assets import _JavaScript as upstream
    context = {
        "script_files": [upstream("_static/doctools.js", priority=200, id="docs"), upstream(None, body="x = 1;")]
    }
    try:
        defer_scripts(None, "page", "page.html", context, None)
        deferred, inline = context["script_files"]
        ok = (
            deferred.filename == "_static/doctools.js"
            and deferred.priority == 200
            and deferred.attributes == {"id": "docs", "defer": "defer"}
            and inline.attributes == {"body": "x = 1;"}
        )
    except (AttributeError, TypeError) as error:
        return [f"defer_scripts fails on Sphinx's script_files entries: {error!r}"]
    found = [(script.filename, script.attributes) for script in context["script_files"]]
    return [] if ok else [f"defer_scripts no longer defers Sphinx's script_files entries: {found}"]
