"""One CI definition: the GitHub workflow runs every nox session that .ci/run runs. The one stand-in is
the workflow's judge job, which installs the judge as a reader does on three systems and runs
tests/judge_wheel.py, the script behind `nox -s judge_wheel`."""

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.torch_independent  # see pyproject.toml's markers

ROOT = Path(__file__).resolve().parents[1]
SESSION = re.compile(r"\bnox -s \"?([a-z_]+)")


def sessions(text: str) -> set[str]:
    return set(SESSION.findall("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))))


def test_the_workflow_runs_every_session_of_ci_run():
    ci = sessions((ROOT / ".ci" / "run").read_text())
    workflow_text = (ROOT / ".github" / "workflows" / "book.yml").read_text()
    workflow = sessions(workflow_text)
    assert "tests/judge_wheel.py" in workflow_text  # the judge job stands in for nox -s judge_wheel
    assert {"lint", "tests", "browser", "reproducible"} <= ci
    assert ci - {"judge_wheel"} <= workflow, (
        f".ci/run runs {sorted(ci - {'judge_wheel'} - workflow)} and the workflow does not"
    )
