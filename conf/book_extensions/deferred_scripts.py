"""Every script file in the head is deferred but documentation_options.js (async ones stay async; inline
scripts cannot be deferred), so none holds up the first paint.

Deferred scripts still run in order, before DOMContentLoaded. documentation_options.js stays
blocking: the inline scripts after it read DOCUMENTATION_OPTIONS. Not on the search page, whose
searchtools.js is a plain <script> in the body that needs doctools.js already run. No Sphinx
setting defers the scripts extensions add, so each `script_files` entry is rebuilt with defer
(tests/test_upstream.py fails when Sphinx's entries can no longer be rebuilt so). Tests:
tests/test_fixture_projects.py.
"""

from __future__ import annotations

from sphinx.application import Sphinx

from book_extensions import ENV_VERSION

KEPT_BLOCKING = "_static/documentation_options.js"


def defer_scripts(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if pagename == "search":
        return
    context["script_files"] = [
        script
        if not script.filename or script.filename == KEPT_BLOCKING or {"defer", "async"} & set(script.attributes)
        else type(script)(script.filename, priority=script.priority, **script.attributes, defer="defer")
        for script in context["script_files"]
    ]


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", defer_scripts, priority=900)  # after every extension added its scripts
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
