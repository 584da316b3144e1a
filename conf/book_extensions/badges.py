"""Under each executed page's title: the torch that ran its code, when, how many snippets, how long.

Date and duration come from myst-nb's execution record (for a cache hit, the cached run's), so an en
page rendered from zh's execution says when the code really ran: on a machine whose clock is UTC, as
CI's is. Elsewhere a cache hit's time is off by the zone's offset: myst-nb reads jupyter-cache's
UTC time as local time (its first run's time is right). Sphinx: ``doctree-read``.
Canary: ``myst-nb-exec-data`` in upstream/notebook_stack.py. Tests: tests/test_fixture_projects.py
(alone), tests/test_site.py (every page).
"""

from __future__ import annotations

from datetime import datetime, timezone

from docutils import nodes
from myst_nb.sphinx_ import NbMetadataCollector

import book_settings
from book_extensions import ENV_VERSION
from book_extensions import pages
from book_extensions.languages import text


def add_badge(app, doctree):
    data = NbMetadataCollector.get_exec_data(app.env, app.env.docname)
    if not data or not data.get("succeeded"):
        return
    cells = len(pages.page_of(app.env).code_cells)
    ran = datetime.fromtimestamp(data["mtime"], tz=timezone.utc)
    line = text(app.env, "badge").format(
        torch=app.config.book_torch,
        date=f"{ran:%Y-%m-%d %H:%M} UTC",
        cells=cells,
        plural="" if cells == 1 else "s",
        seconds=data.get("runtime") or 0.0,
    )  # zh has no plural
    badge = nodes.paragraph("", line, classes=["execution-badge"])
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is not None:
        section.insert(1, badge)  # right after the title


def setup(app):
    app.add_config_value("book_torch", book_settings.installed_torch(), "env", str)  # the torch this build runs
    app.connect("doctree-read", add_badge)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": ENV_VERSION}
