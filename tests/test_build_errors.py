"""Bad input fails loudly and names the culprit, in the build and in Sybil.

A scratch checkout (this conf/ and helpers, one page per broken case, scratch snippets) is built once with
the book's Sphinx flags; each test then looks for its error in that build's output.
"""

import time

import pytest
from exercise_judge import limits
from sybil import Sybil

from book_extensions import pages
from code_cells import CodeCellParser
from snippet_runs import run_snippet
from scratch_book import FRONT_MATTER, build, cell, scratch_book

pytestmark = pytest.mark.torch_independent  # see pyproject.toml's markers

BROKEN_PAGES = {
    "missing-snippet.md": FRONT_MATTER + "# Missing\n\n" + cell("../../snippets/demo/nowhere.py"),
    "no-front-matter.md": "# No front matter\n\n" + cell("../../snippets/demo/fine.py"),
    "inline-code.md": FRONT_MATTER + "# Inline\n\n```{code-cell} ipython3\nprint('inline')\n```\n",
    "raising-snippet.md": FRONT_MATTER
    + "# Raises\n\n"
    + cell("../../snippets/demo/fine.py")
    + "\n"
    + cell("../../snippets/demo/divides-by-zero.py"),
    "flooding-snippet.md": FRONT_MATTER + "# Floods\n\n" + cell("../../snippets/demo/floods.py"),
    "flooding-tagged-snippet.md": FRONT_MATTER
    + "# Floods, tagged\n\n"
    + cell("../../snippets/demo/floods.py", ":tags: [raises-exception]\n"),
    "hanging-snippet.md": FRONT_MATTER
    + "# Hangs\n\n"
    + cell("../../snippets/demo/fine.py")
    + "\n"
    + cell("../../snippets/demo/hangs.py"),
    "unknown-exercise.md": "# Unknown exercise\n\nA statement.\n\n```{exercise-notebook} demo/nothing\n```\n",
    "unrendered-cell.md": FRONT_MATTER
    + "# Unrendered\n\n"
    + cell("../../snippets/demo/fine.py")
    + "\n"
    + cell("../../snippets/demo/fine.py", ":tags: [remove-input, remove-output]\n"),
    "bad-front-matter.md": "---\nfile_format: mystnb\nkernelspec: [\n---\n\n# Bad YAML\n\n"
    + cell("../../snippets/demo/fine.py"),
    "python-cell.md": FRONT_MATTER
    + "# Python cell\n\n```{code-cell} python\n:load: ../../snippets/demo/fine.py\n```\n",
    "cell-without-load.md": FRONT_MATTER + "# No load\n\n```{code-cell} ipython3\n```\n",
    "load-outside-snippets.md": FRONT_MATTER
    + "# Outside\n\n"
    + cell("../../pyproject.toml")
    + "\nIt said {glue:text}`ratio`.\n",
    # The report reads every page's snippets, those of the broken pages too.
    "verification-report.md": "# Report\n\n```{verification-report}\n```\n",
    "unparsable-snippet.md": FRONT_MATTER + "# Unparsable\n\n" + cell("../../snippets/demo/unclosed.py"),
    "load-the-folder.md": FRONT_MATTER + "# Folder\n\n" + cell("../../snippets/"),
    "star-import.md": FRONT_MATTER + "# Star\n\n" + cell("../../snippets/demo/star-import.py"),
    "quoted-prose.md": FRONT_MATTER + "# Quoted\n\n> Said somewhere.\n\n" + cell("../../snippets/demo/fine.py"),
    "unknown-claim.md": "# Claim\n\nIt holds{claim}`other/nothing`.\n",
    "unknown-chapter-claim.md": "# Claim\n\nIt holds{claim}`elsewhere/nothing`.\n",
    "unparsable-claims.md": "# Claim\n\nIt holds{claim}`demo/holds`.\n",
    # A chapter's claims.py that does not parse blocks no other chapter's claims, an exercise's too.
    "exercise-with-a-claim.md": "# Exercise\n\n## Task\n\nIt holds{claim}`other/holds`.\n\n"
    "```{exercise-notebook} demo/task\n```\n",
    "versions-without-text.md": "# Versions\n\nPrinted by {torch-versions}`demo/fine.py`.\n",
    "versions-without-snapshot.md": "# Versions\n\nPrinted by {torch-versions}`demo/fine.py|fine`.\n",
    "often-said-alone.md": "# Often said\n\n:::{often-said} alone\nSaid, but not measured.\n:::\n",
    "exercise-in-a-note.md": "# Exercise\n\n## Task\n\nDo it.\n\n:::{note}\n```{exercise-notebook} demo/task\n```\n:::\n",
    "glossary.md": "# Glossary\n\n```{book-glossary}\n```\n",  # the glossary: BROKEN_GLOSSARY
}
SNIPPETS = {
    "fine.py": "print('fine')\n",
    "divides-by-zero.py": "import math\n\nratio = math.pi / 0\nprint(ratio)\n",
    "hangs.py": "import time\n\nprint('started')\nwhile True:\n    time.sleep(0.1)\n",
    "floods.py": "while True:\n    print('x' * 80)\n",
    "star-import.py": "from measured import *\n\nprint(1)\n",
    "unclosed.py": "print('fine')\nprint(\n",
    "claims.py": 'def holds():\n    """It holds."""\n    assert 1 +\n',
    "other/claims.py": 'def holds():\n    """It holds."""\n    assert True\n',
    "exercise-task.py": "def task():\n    pass\n",
    # a child that outlives the run and holds its output pipe (as a hung DDP worker would), the run hanging or not
    "leaves-a-child.py": "import os\nimport time\n\nif os.fork() == 0:\n    time.sleep(60)\n    os._exit(0)\n"
    "print('parent waits')\nwhile True:\n    time.sleep(0.1)\n",
    "leaves-a-child-and-ends.py": "import os\nimport time\n\nif os.fork() == 0:\n    time.sleep(60)\n"
    "    os._exit(0)\nprint('parent done')\n",
}
TIMEOUT_SECONDS = 3  # the scratch builds' per-snippet limit; the book's is limits.TIMEOUT_SECONDS
SHORT_LIMIT = ("-D", f"nb_execution_timeout={TIMEOUT_SECONDS}")


# Its second entry (line 5) lacks en_def: the zh build reports it when it writes the search dictionary,
# and again where glossary.md shows the glossary.
BROKEN_GLOSSARY = '[[term]]\ncode = "grad_fn"\nzh_def = "属性"\nen_def = "An attribute."\n[[term]]\nzh = "叶子张量"\nen = "leaf"\nzh_def = "甲"\n'


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    root = scratch_book(tmp_path_factory.mktemp("checkout"), BROKEN_PAGES, SNIPPETS)
    (root / "docs" / "glossary.toml").write_text(BROKEN_GLOSSARY, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def zh_build(scratch):
    done = build(scratch, "zh", *SHORT_LIMIT)
    assert done.returncode != 0, "the scratch build with broken pages succeeded:\n" + done.stdout
    # Each mistake is reported and the build goes on to the end: no exception stopped Sphinx.
    assert "build finished with problems" in done.stdout, done.stdout
    assert "The full traceback has been saved in" not in done.stdout, done.stdout
    return done.stdout


def test_a_broken_glossary_is_reported_where_the_search_dictionary_and_the_glossary_page_read_it(zh_build):
    assert zh_build.count("docs/glossary.toml:5: ERROR: the [[term]] here has no en_def") == 2, zh_build


def test_missing_snippet_names_page_line_and_path(zh_build):
    assert (
        "docs/zh/missing-snippet.md:9: ERROR: `:load: ../../snippets/demo/nowhere.py` names a missing file" in zh_build
    ), zh_build


def test_an_exercise_notebook_without_its_starter_names_page_line_and_file(zh_build):
    assert (
        "docs/zh/unknown-exercise.md:5: ERROR: no exercise 'demo/nothing': its starter file would be "
        "snippets/demo/exercise-nothing.py" in zh_build
    ), zh_build


def test_code_cells_without_front_matter_fail(zh_build):
    assert "docs/zh/no-front-matter.md:1: ERROR: 1 code cell(s) but no notebook front matter" in zh_build, zh_build


def test_inline_code_in_a_cell_fails(zh_build):
    assert "docs/zh/inline-code.md:9: ERROR: inline code in a code cell" in zh_build, zh_build


def test_raising_snippet_is_named_with_its_line(zh_build):
    assert "snippets/demo/divides-by-zero.py:3: ERROR: ZeroDivisionError: float division by zero" in zh_build, zh_build
    assert "in the code cell at" in zh_build and "raising-snippet.md:13" in zh_build, zh_build


def test_a_hanging_snippet_is_stopped_and_named(zh_build):
    assert (
        f"docs/zh/hanging-snippet.md:13: ERROR: snippets/demo/hangs.py was still running after {TIMEOUT_SECONDS} s "
        "(the per-run limit, TIMEOUT_SECONDS in snippets/judge/exercise_judge/limits.py) and was stopped"
    ) in zh_build, zh_build


def test_a_snippet_that_prints_without_end_is_cut_and_named(zh_build):
    assert (
        "snippets/demo/floods.py:2: ERROR: snippets/demo/floods.py printed more than 100,000 characters (the "
        "per-run limit, OUTPUT_LIMIT in snippets/judge/exercise_judge/limits.py) and was cut; in the code cell at "
        "docs/zh/flooding-snippet.md:9"
    ) in zh_build, zh_build
    reports = [line for line in zh_build.splitlines() if "flooding-snippet.md:9" in line]
    assert len(reports) == 1, "\n".join(reports)  # once, and not as a raises-exception cell


def test_a_snippet_that_floods_in_a_raises_exception_cell_still_fails(zh_build):
    assert (
        "docs/zh/flooding-tagged-snippet.md:9: ERROR: snippets/demo/floods.py printed more than 100,000 characters"
    ) in zh_build, zh_build


def test_a_cell_myst_nb_does_not_render_fails_instead_of_dropping_the_download_links(zh_build):
    assert (
        "docs/zh/unrendered-cell.md: ERROR: 2 code cell(s) in the page but myst-nb rendered 1, so no cell "
        "can be matched with its snippet's download link"
    ) in zh_build, zh_build


@pytest.mark.parametrize(
    "error",
    [
        "docs/zh/bad-front-matter.md:3: ERROR: the front matter is not YAML: while parsing a flow node",
        "docs/zh/python-cell.md:9: ERROR: write `{code-cell} ipython3`, not `{code-cell} python`",
        "docs/zh/cell-without-load.md:9: ERROR: code cell without `:load: ../../snippets/<chapter>/<idea>.py`",
        "docs/zh/load-outside-snippets.md:9: ERROR: `:load: ../../pyproject.toml` is outside snippets/",
        "docs/zh/star-import.md:9: ERROR: snippets/demo/star-import.py:1: import the helpers by name, not with *",
        "docs/zh/unparsable-snippet.md:9: ERROR: snippets/demo/unclosed.py:2: SyntaxError: ",
        "docs/zh/load-the-folder.md:9: ERROR: `:load: ../../snippets/` names a folder: name the snippet's file in it",
        "docs/zh/quoted-prose.md:9: ERROR: the page's notebook cannot be made: a <block_quote> node has no "
        "Markdown form in the notebook",
        "docs/zh/unknown-claim.md:3: ERROR: {claim}`other/nothing` names no check: write `def nothing():` with "
        "asserts in snippets/other/claims.py",
        "docs/zh/unknown-chapter-claim.md:3: ERROR: {claim}`elsewhere/nothing` names no check: write `def "
        "nothing():` with asserts in snippets/elsewhere/claims.py",
        "docs/zh/unparsable-claims.md:3: ERROR: {claim}`demo/holds` cannot be checked: snippets/demo/claims.py:3: ",
        "docs/zh/verification-report.md:3: ERROR: left out of the checks counted here, as it does not parse: "
        "snippets/demo/claims.py:3: ",
        "docs/zh/versions-without-text.md:3: ERROR: write {torch-versions}`<chapter>/<idea>.py|<text it prints>`, "
        "not `demo/fine.py`",
        "docs/zh/versions-without-snapshot.md:3: ERROR: snippets/demo/fine.py has no snapshot yet: once a page "
        "loads it, `nox -s tests` writes tests/snapshots/demo/fine.txt for review",
        "docs/zh/often-said-alone.md:3: ERROR: often-said needs the claim (first paragraph) and what was measured "
        "(the rest)",
        "docs/zh/exercise-in-a-note.md:8: ERROR: the exercise's notebook cannot be made: the exercise-notebook "
        "directive belongs right in the exercise's section",
    ],
    ids=lambda error: error.partition(":")[0].removeprefix("docs/zh/"),
)
def test_an_authors_mistake_is_reported_at_its_page_and_line(zh_build, error):
    """Each mistake is an error of its own, at its line, and the build goes on to report the others."""
    assert error in zh_build, zh_build


@pytest.mark.parametrize(
    ("front_matter", "line", "said"),
    [
        ('x: "abc\nkernelspec: {}\n', 3, "found unexpected end of stream (opened at line 2)"),
        ("title: Case\ndate: 2021-99-99\n", 1, "below this line, is not YAML: month must be in 1..12"),
        ("x: a\x07b\n", 2, "unacceptable character #x0007"),
        ("- a\n- b\n", 2, "the front matter is a YAML list, not a mapping of keys"),
    ],
    ids=["unclosed-quote", "bad-date", "control-character", "list"],
)
def test_front_matter_that_is_no_yaml_mapping_is_a_page_problem_at_its_line(front_matter, line, said):
    page = pages.read_page(pages.DOCS / "zh" / "case.md", f"---\n{front_matter}---\n\n# Case\n")
    ((found_line, message),) = page.problems()
    assert (found_line, said in message) == (line, True), (found_line, message)


def test_a_claims_file_that_does_not_parse_blocks_no_other_chapters_claims(scratch, zh_build):
    """demo/claims.py does not parse; an exercise page claiming a check of other/ builds without an error,
    and its notebook links the claim to its check."""
    assert "exercise-with-a-claim.md" not in zh_build, zh_build
    notebook = scratch / "build" / "zh" / "html" / "exercises" / "demo-task.ipynb"
    assert "snippets/other/claims.py#L1" in notebook.read_text(encoding="utf-8")


def test_a_claim_awaiting_its_claims_file_is_read_again_once_the_file_exists(tmp_path):
    """A page whose {claim} named a missing claims.py must show its claim mark once the file comes."""
    root = scratch_book(tmp_path, {"claim.md": "# Claim\n\nIt holds{claim}`other/holds`.\n"}, {})
    assert "names no check" in build(root, "zh").stdout
    (root / "snippets" / "other").mkdir()
    (root / "snippets" / "other" / "claims.py").write_text(
        'def holds():\n    """It holds."""\n    assert True\n', encoding="utf-8"
    )
    again = build(root, "zh")
    written = (root / "build" / "zh" / "html" / "claim.html").read_text(encoding="utf-8")
    assert again.returncode == 0 and 'class="claim-mark"' in written, again.stdout


def test_a_version_claim_awaiting_its_snapshot_is_read_again_once_the_snapshot_exists(tmp_path):
    """A page whose {torch-versions} role failed must not keep an empty role after the snapshot comes."""
    page = "# Versions\n\nPrinted by {torch-versions}`demo/fine.py|fine`.\n"
    root = scratch_book(tmp_path, {"versions.md": page}, {"fine.py": "print('fine')\n"})
    assert "has no snapshot yet" in build(root, "zh").stdout
    snapshot = root / "tests" / "snapshots" / "demo" / "fine.txt"
    snapshot.parent.mkdir(parents=True)
    snapshot.write_text("fine\n", encoding="utf-8")
    again = build(root, "zh")
    written = (root / "build" / "zh" / "html" / "versions.html").read_text(encoding="utf-8")
    assert again.returncode == 0 and 'class="torch-versions"' in written, again.stdout


def test_twinless_page_fails_the_build(scratch):
    (scratch / "docs" / "en" / "inline-code.md").unlink()
    done = build(scratch, "en", *SHORT_LIMIT)
    assert "docs/en/inline-code.md is missing: every page needs its twin" in done.stdout, done.stdout


def sybil_examples(scratch, page_text):
    page = scratch / "docs" / "zh" / "sybil-case.md"
    page.write_text(FRONT_MATTER + "# Case\n\n" + page_text)
    return list(Sybil(parsers=[CodeCellParser()]).parse(page))


def test_sybil_fails_a_raises_exception_cell_that_does_not_raise(scratch):
    (example,) = sybil_examples(scratch, cell("../../snippets/demo/fine.py", ":tags: [raises-exception]\n"))
    with pytest.raises(AssertionError, match="tagged raises-exception, but .*fine.py did not raise"):
        example.evaluate()


def test_sybil_accepts_a_raises_exception_cell_that_raises(scratch):
    (example,) = sybil_examples(scratch, cell("../../snippets/demo/divides-by-zero.py", ":tags: [raises-exception]\n"))
    example.evaluate()


def test_sybil_stops_a_hanging_snippet(scratch, monkeypatch):
    monkeypatch.setattr(limits, "TIMEOUT_SECONDS", 1)
    (example,) = sybil_examples(scratch, cell("../../snippets/demo/hangs.py", ":tags: [raises-exception]\n"))
    with pytest.raises(
        limits.TooSlow,
        match="snippets/demo/hangs.py, loaded by the code cell at .*/sybil-case.md:9, "
        r"was still running after 1 s \(the per-run limit, TIMEOUT_SECONDS in .*limits.py\)",
    ):
        example.evaluate()


def test_sybil_cuts_a_snippet_that_prints_without_end(scratch):
    (example,) = sybil_examples(scratch, cell("../../snippets/demo/floods.py", ":tags: [raises-exception]\n"))
    with pytest.raises(
        limits.TooLoud,
        match=r"snippets/demo/floods.py, loaded by the code cell at .*/sybil-case.md:9, "
        r"printed more than 100,000 characters \(the per-run limit, OUTPUT_LIMIT in .*limits.py\)",
    ):
        example.evaluate()


def test_a_snapshot_run_stops_a_snippet_that_hangs_or_floods(scratch, monkeypatch, launch):
    monkeypatch.setattr(limits, "TIMEOUT_SECONDS", 2)
    for name, reason in (
        ("hangs.py", r"was still running after 2 s \(the per-run limit, TIMEOUT_SECONDS in .*limits.py"),
        ("floods.py", r"printed more than 100,000 characters \(the per-run limit, OUTPUT_LIMIT in .*limits.py"),
    ):
        start = time.monotonic()
        with pytest.raises(limits.Stopped, match=f"demo/{name} {reason}"):
            run_snippet(scratch / "snippets" / "demo" / name, launch)
        assert time.monotonic() - start < 20


def test_a_child_left_holding_a_snapshot_runs_output_holds_up_neither_stop_nor_end(scratch, monkeypatch, launch):
    monkeypatch.setattr(limits, "TIMEOUT_SECONDS", 2)
    start = time.monotonic()
    with pytest.raises(limits.TooSlow, match=r"demo/leaves-a-child.py was still running after 2 s"):
        run_snippet(scratch / "snippets" / "demo" / "leaves-a-child.py", launch)
    assert time.monotonic() - start < 20
    monkeypatch.setattr(limits, "TIMEOUT_SECONDS", 10)
    start = time.monotonic()
    run = run_snippet(scratch / "snippets" / "demo" / "leaves-a-child-and-ends.py", launch)
    assert (run.returncode, run.output, time.monotonic() - start < 5) == (0, "parent done\n", True), run


def test_sybil_names_the_snippet_line_of_an_unexpected_error(scratch):
    (example,) = sybil_examples(scratch, cell("../../snippets/demo/divides-by-zero.py"))
    with pytest.raises(ZeroDivisionError) as raised:
        example.evaluate()
    frame = raised.traceback[-1]
    assert str(frame.path).endswith("snippets/demo/divides-by-zero.py") and frame.lineno + 1 == 3
