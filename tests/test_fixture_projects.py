"""The extensions' Sphinx conventions, each on a small fixture project.

What they keep in the environment between builds (the page model, one watched file per page, one file
every page depends on): kept through a parallel read, dropped with its page; a watched file re-reads its
page, the shared file or a new ENV_VERSION every page. A setting declared with add_config_value. And a
transform's result on a page written for it (PyTorch API links)."""

import dataclasses
import io
import os
import subprocess
import sys
import time

import pytest
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import docutils_namespace, patch_docutils

import book_extensions
import book_settings
from book_extensions import pages

pytestmark = pytest.mark.torch_independent  # see pyproject.toml's markers

CONF = """\
extensions = ["myst_parser", "book_extensions.pages"]


def setup(app):
    from pathlib import Path

    from book_extensions import pages, rereads

    rereads.watch(app, "notes", lambda page: [page.path.with_suffix(".note")])
    pages.every_page_depends_on(app, Path(app.confdir, "table.toml"))
"""
PAGES = [f"page-{n}" for n in range(6)]
# What reading a page stores as of ENV_VERSION (the page model's fields, the environment's attributes).
# A change to it needs ENV_VERSION + 1 in conf/book_extensions/__init__.py, so that Sphinx reads every
# page anew instead of unpickling models of the old shape; then record the new format here.
STORED = (
    3,
    {
        "Page": [
            "path",
            "text",
            "front_matter",
            "code_cells",
            "labels",
            "roles",
            "directives",
            "prose",
            "front_matter_error",
        ],
        "CodeCell": ["page", "line", "end_line", "language", "options", "body"],
        "Role": ["name", "content", "line"],
        "Directive": ["name", "argument", "line", "options"],
        "environment": ["book_fingerprints_notes", "book_pages"],
    },
)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "conf.py").write_text(CONF)
    (tmp_path / "table.toml").write_text("")
    (tmp_path / "index.md").write_text("# Index\n\n```{toctree}\n" + "\n".join(PAGES) + "\n```\n")
    for name in PAGES:
        (tmp_path / f"{name}.md").write_text(f"({name})=\n# {name}\n\nSome {{sup}}`prose`.\n")
    return tmp_path


def build(project, parallel: int = 1, warnings: io.StringIO | None = None, **settings) -> Sphinx:
    with patch_docutils(project), docutils_namespace():  # as sphinx-build: directives and roles per build
        app = Sphinx(
            project,
            project,
            project / "_build" / "html",
            project / "_build" / "doctrees",
            "dummy",
            status=io.StringIO(),
            warning=warnings or io.StringIO(),
            parallel=parallel,
            confoverrides=settings,
        )
        app.build()
    return app


def read_again(before: Sphinx, after: Sphinx) -> set[str]:
    """The pages the second build read: Sphinx stamps a page with the time it was read."""
    return {docname for docname, stamp in after.env.all_docs.items() if before.env.all_docs.get(docname) != stamp}


@pytest.mark.parametrize("parallel", [1, 2], ids=["serial", "parallel"])
def test_a_watched_file_that_comes_changes_or_goes_re_reads_its_page(project, parallel):
    app = build(project, parallel)
    assert set(app.env.book_pages) == {"index", *PAGES}, "a page read in a worker lost its model"
    assert app.env.book_pages["page-3"].labels == ["page-3"]
    note = project / "page-3.note"
    steps = [
        ("nothing changed", lambda: None),
        ("the file came", lambda: note.write_text("one")),
        ("the file changed", lambda: os.utime(note, ns=(note.stat().st_mtime_ns + 10**9,) * 2)),
        ("the file went", note.unlink),
    ]
    for step, change in steps:
        change()
        app, before = build(project, parallel), app
        assert read_again(before, app) == (set() if step == "nothing changed" else {"page-3"}), step


def test_a_removed_page_leaves_neither_model_nor_fingerprint(project):
    build(project)
    (project / "page-5.md").unlink()
    app = build(project)
    assert "page-5" not in app.env.book_pages, "a removed page kept its model"
    assert "page-5" not in app.env.book_fingerprints_notes, "a removed page kept its fingerprint"


def test_a_file_every_page_depends_on_re_reads_every_page(project):
    first = build(project)
    table = project / "table.toml"
    os.utime(table, ns=(time.time_ns() + 10**10,) * 2)  # newer than the pages' reading, whatever the clock's grain
    assert read_again(first, build(project)) == {"index", *PAGES}, "a changed table.toml did not re-read every page"


def test_a_new_env_version_reads_every_page_anew(project, monkeypatch):
    first = build(project)
    monkeypatch.setattr(book_extensions, "ENV_VERSION", book_extensions.ENV_VERSION + 1)
    assert read_again(first, build(project)) == {"index", *PAGES}, "a new ENV_VERSION did not re-read every page"


def test_what_the_environment_stores_is_what_env_version_was_recorded_with(project):
    found = {
        cls.__name__: [field.name for field in dataclasses.fields(cls)]
        for cls in (pages.Page, pages.CodeCell, pages.Role, pages.Directive)
    }
    found["environment"] = sorted(name for name in vars(build(project).env) if name.startswith("book_"))
    assert (book_extensions.ENV_VERSION, found) == STORED, (
        "what reading a page stores changed: bump ENV_VERSION in conf/book_extensions/__init__.py and record "
        "the new format in STORED"
    )


@pytest.mark.parametrize("publish", [False, True])
def test_conf_py_takes_book_publish_from_the_environment(publish):
    env = {key: value for key, value in os.environ.items() if key != book_settings.PUBLISH_ENV}
    read = subprocess.run(
        [sys.executable, "-c", "import runpy; print(runpy.run_path('conf/conf.py')['book_publish'])"],
        cwd=book_settings.ROOT,
        env={**env, **({book_settings.PUBLISH_ENV: "1"} if publish else {})},
        capture_output=True,
        text=True,
        check=True,
    )
    assert read.stdout.strip() == str(publish), read.stderr


@pytest.mark.parametrize("publish", [False, True])
def test_book_publish_fails_a_build_whose_records_do_not_verify_the_book(tmp_path, monkeypatch, publish):
    from book_extensions import verification

    monkeypatch.setattr(verification, "RECORDS", tmp_path / "no-records")
    (tmp_path / "conf.py").write_text(
        'extensions = ["myst_parser", "book_extensions.languages", "book_extensions.verification"]\n'
    )
    (tmp_path / "index.md").write_text("# Verification\n\n```{verification-verdict}\n```\n")
    build(tmp_path, warnings=(warnings := io.StringIO()), language="en", book_publish=publish)
    complaint = "book_publish is set (BOOK_PUBLISH), but the records do not verify the book"
    assert (complaint in warnings.getvalue()) == publish, (
        f"book_publish={publish}, no record: the build {'did not fail' if publish else 'failed'}"
    )


def test_inline_code_naming_a_pytorch_api_links_to_its_reference_page(tmp_path):
    (tmp_path / "conf.py").write_text('extensions = ["myst_parser", "book_extensions.api_links"]\n')
    (tmp_path / "index.md").write_text(
        "# APIs\n\n`torch.no_grad()`, `nn.Linear(1024, 1024)`, `Tensor.detach()`, `optimizer.step()`; not "
        "`loss.backward()` (a variable's method), `torch.no_such_api()`, a code block or code already linked: "
        "[`torch.enable_grad()`](https://example.org/own).\n\n```python\ntorch.no_grad()\n```\n"
    )
    doctree = build(tmp_path, language="en").env.get_doctree("index")
    reference = "https://docs.pytorch.org/docs/stable/"
    links = {link.astext(): (link["refuri"], link.get("reftitle")) for link in doctree.findall(nodes.reference)}
    assert links == {
        "torch.no_grad()": (f"{reference}generated/torch.no_grad.html", "PyTorch reference"),
        "nn.Linear(1024, 1024)": (f"{reference}generated/torch.nn.Linear.html", "PyTorch reference"),
        "Tensor.detach()": (f"{reference}generated/torch.Tensor.detach.html", "PyTorch reference"),
        "optimizer.step()": (f"{reference}generated/torch.optim.Optimizer.step.html", "PyTorch reference"),
        "torch.enable_grad()": ("https://example.org/own", None),
    }, links
