"""Every fact about the book that more than one tool needs, in one place, importable without Sphinx.

The noxfile, conf.py, the extensions in ``book_extensions``, the tests, .ci/run and the GitHub
workflow (``python conf/book_settings.py --github-output``) read these names; none of them keeps its
own copy (the judge, a distribution of its own, repeats RUN_ENV; a test compares the two). Only the
standard library is imported here (the noxfile runs outside the venvs, the workflow with a bare
Python). How a build runs is build_runs'; the per-run time and output limits are the judge's
(exercise_judge.limits), which every venv installs.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "conf"
DOCS = ROOT / "docs"
SNIPPETS = ROOT / "snippets"
TESTS = ROOT / "tests"
BUILD = ROOT / "build"
RECORDS = BUILD / "records"  # what each torch's test run found, read by the verification page
# Set where the site is built for readers (the publish job): the build fails unless the records of
# every supported torch verify every snippet and check, so no published ✓ says "no test record yet".
PUBLISH_ENV = "BOOK_PUBLISH"

with open(ROOT / "pyproject.toml", "rb") as _file:
    PYPROJECT: dict = tomllib.load(_file)  # read here only; the noxfile takes its dependency groups from it
_BOOK = PYPROJECT["tool"]["autograd-measured"]

TORCH_VERSIONS: list[str] = list(_BOOK["torch-versions"])  # oldest first
DEFAULT_TORCH: str = _BOOK["default-torch"]  # builds the published site, owns the shared snapshots
REPOSITORY: str = PYPROJECT["project"]["urls"]["Repository"]
# Where GitHub Pages publishes the site (the languages under <SITE_URL>zh/ and <SITE_URL>en/): the
# canonical links, hreflang alternates, Open Graph URLs and sitemap are absolute URLs below it
# (conf.py's html_baseurl). A custom domain would replace this line.
_OWNER, _REPOSITORY_NAME = REPOSITORY.removeprefix("https://github.com/").split("/")[:2]
SITE_URL: str = f"https://{_OWNER.lower()}.github.io/{_REPOSITORY_NAME}/"
# The exercises' judge: its own distribution (snippets/judge/pyproject.toml), built as a wheel that every
# torch venv installs and the site serves under judge/ (JUDGE_SITE_FOLDER) for readers' pip.
JUDGE = SNIPPETS / "judge"
JUDGE_DISTRIBUTION = "autograd-measured-judge"
JUDGE_SITE_FOLDER = "judge"


def exercise_file(exercise_id: str, solution: bool = False) -> Path:
    """snippets/<chapter>/exercise-<name>.py, the starter a reader fills in (its reference solution:
    exercise-<name>-solution.py) of the exercise "<chapter>/<name>"."""
    chapter, name = exercise_id.split("/")
    return SNIPPETS / chapter / f"exercise-{name}{'-solution' if solution else ''}.py"


# What the project installs from snippets/ beside the chapters' snippets: the helper modules (measured,
# prewarmed), and the judge. They are tools, not snippets a page loads.
_SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
INSTALLED_FROM_SNIPPETS: list[Path] = [SNIPPETS / f"{name}.py" for name in _SETUPTOOLS["py-modules"]] + [JUDGE]

# The MyST syntax extensions of every page: Sphinx's myst_enable_extensions and the page model's parser.
MYST_EXTENSIONS: list[str] = ["colon_fence", "deflist", "substitution"]

# The language trees under docs/, in the book's order (Chinese first: the en build reuses the
# zh build's executions), each with the code Sphinx is given as `-D language=…`.
LANGUAGES: dict[str, str] = {"zh": "zh_CN", "en": "en"}
TREE_OF_SPHINX_LANGUAGE = {code: tree for tree, code in LANGUAGES.items()}

# Thread count changes the last digits of float32 reductions: the docs kernel, Sybil, the snippet
# runs and the judge all run with one thread, so that a number is the same on every machine.
RUN_ENV: dict[str, str] = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}


LOCKS = CONF / "locks"  # one pip lock file per torch version (`nox -s lock` writes them)
NODE_TOOLS = TESTS / "node"  # package.json and package-lock.json of the npm tools; `npm ci` there


def installed_torch() -> str:
    """The release of the torch installed where this runs: PyPI's wheels say 2.13.0, local CPU builds 2.13.0+cpu."""
    from importlib.metadata import version

    return version("torch").split("+")[0]


def lock_file(torch: str) -> Path:
    return LOCKS / f"torch-{torch}.txt"


def out_root(torch: str) -> Path:
    """The default torch builds build/<lang>/ and build/site; any other under build/torch-<v>/."""
    return BUILD if torch == DEFAULT_TORCH else BUILD / f"torch-{torch}"


def execution_cache(torch: str, helpers_hash: str) -> Path:
    """Where myst-nb keeps executed notebooks: jupyter-cache keys a notebook by its code only,
    so the path names the torch that ran it and a hash of the helper module every snippet imports,
    the kernel startup file and the judge's limits (execution_cache.cache_path)."""
    return BUILD / "cache" / f"torch-{torch}" / f"helpers-{helpers_hash}"


if __name__ == "__main__" and sys.argv[1:] == ["--github-output"]:
    import json

    print(f"torch={json.dumps(TORCH_VERSIONS)}")
    print(f"default={DEFAULT_TORCH}")
    print(f"newest={TORCH_VERSIONS[-1]}")
