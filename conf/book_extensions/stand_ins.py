"""Code that stands in for the book's helpers (snippets/measured.py), so a snippet runs with torch alone.

``stand_in_code(names)`` copies those helpers' source, and what they use, from snippets/measured.py,
replaces ``glue`` (which hands a value to the prose through myst-nb) by one that keeps it in the dict
``glued``, and registers them as the module ``measured``, so the snippet runs unchanged after it.
The chapter notebooks start with it (``notebooks``); a snippet's download is it, then the snippet.

No Sphinx hook. Tests: tests/test_downloads.py, tests/test_notebooks.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import book_settings
from book_extensions import pages

HELPERS = pages.SNIPPETS / "measured.py"
HELPER_MODULE = HELPERS.stem

GLUE_STAND_IN = '''\
glued = {}  # what the snippets glued, by name: the page quotes these values in its prose


def glue(name, value, *, varies=False):
    """Stand-in for the book's glue, which hands `value` to the page's prose: keep it in `glued`."""
    glued[name] = value = _python_scalar(value)
    if _is_figure(value):
        import matplotlib.pyplot as plt

        plt.close(value)  # the page shows a glued figure in its prose, not under the cell
'''
GLUE_NEEDS = {"_python_scalar", "_is_figure"}
# A download that draws (imports `figure`) asks for matplotlib before it runs anything, not at its first figure.
MATPLOTLIB_MESSAGE = "This snippet draws a figure: it needs matplotlib besides torch (pip install matplotlib)."
MATPLOTLIB_FIRST = f'''\
try:
    import matplotlib  # noqa: F401  (this snippet draws a figure)
except ImportError:
    raise SystemExit("{MATPLOTLIB_MESSAGE}")
'''


class HelperImportError(ValueError):
    """A snippet imports the helpers in a way the stand-in cell cannot serve."""


def helper_imports(snippet: Path) -> list[str]:
    """The names a snippet imports from the helper module; any other way of importing it is refused,
    naming the line, since the stand-in cell provides names, not a module file."""
    found = []
    for node in ast.walk(ast.parse(snippet.read_text(encoding="utf-8"), str(snippet))):
        if isinstance(node, ast.ImportFrom) and node.module == HELPER_MODULE:
            if any(alias.name == "*" for alias in node.names):
                raise HelperImportError(
                    f"{pages.relative(snippet)}:{node.lineno}: import the helpers by name, not with *"
                )
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.Import) and any(alias.name.split(".")[0] == HELPER_MODULE for alias in node.names):
            raise HelperImportError(
                f"{pages.relative(snippet)}:{node.lineno}: write `from {HELPER_MODULE} import <name>`: "
                "the notebook's stand-in cell provides names"
            )
    return found


def stand_in_code(names: list[str], importers: str = "this chapter's snippets import") -> str:
    """The helpers `names` (and what they use) from snippets/measured.py, glue replaced, registered
    as the module, with one thread as the build's kernel has; `importers` says whose imports they are."""
    source = HELPERS.read_text(encoding="utf-8")
    module = ast.parse(source, str(HELPERS))
    lines = source.splitlines()
    defined: dict[str, ast.stmt] = {}
    for statement in module.body:
        if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
            defined[statement.name] = statement
        elif isinstance(statement, ast.Assign):
            defined.update({target.id: statement for target in statement.targets if isinstance(target, ast.Name)})
        elif isinstance(statement, (ast.Import, ast.ImportFrom)) and getattr(statement, "module", "") != "__future__":
            defined.update({(alias.asname or alias.name).split(".")[0]: statement for alias in statement.names})
    missing = sorted(set(names) - set(defined))
    if missing:
        raise HelperImportError(
            f"snippets import {', '.join(missing)} from {HELPER_MODULE}, which {pages.relative(HELPERS)} "
            "does not define"
        )
    chosen: set[int] = set()
    todo = [name for name in names if name != "glue"] + (sorted(GLUE_NEEDS) if "glue" in names else [])
    while todo:
        statement = defined[todo.pop()]
        if id(statement) in chosen:
            continue
        chosen.add(id(statement))
        todo += [node.id for node in ast.walk(statement) if isinstance(node, ast.Name) and node.id in defined]

    def text_of(statement) -> str:
        first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", []))])
        return "\n".join(lines[first - 1 : statement.end_lineno])

    picked = [statement for statement in module.body if id(statement) in chosen]
    imports = sorted(
        {text_of(s) for s in picked if isinstance(s, (ast.Import, ast.ImportFrom))} | {"import sys", "import types"},
        key=lambda line: (line.startswith("from"), line),
    )
    definitions = [text_of(s) for s in picked if not isinstance(s, (ast.Import, ast.ImportFrom))]
    if "glue" in names:
        definitions.append(GLUE_STAND_IN.rstrip())
    threads = book_settings.RUN_ENV["OMP_NUM_THREADS"]
    exported = ", ".join(f"{name}={name}" for name in sorted(set(names)))
    header = "\n".join(
        [
            f"# Stand-ins for what {importers} from the book's {pages.relative(HELPERS)}",
            *imports,
            "",
            "import torch",
            "",
            f"torch.set_num_threads({threads})  # as in the book's build: float32 sums add up in the same order",
        ]
    )
    registration = "\n".join(
        [
            f'{HELPER_MODULE} = types.ModuleType("{HELPER_MODULE}", "Stand-ins for the book\'s helpers")',
            f"vars({HELPER_MODULE}).update({exported})",
            f'sys.modules["{HELPER_MODULE}"] = {HELPER_MODULE}',
        ]
    )
    return "\n\n\n".join([header, *definitions, registration]) + "\n"


def standalone(snippet: Path) -> str:
    """The snippet as a reader downloads it: the stand-ins for the helpers it imports, then its own
    code, unchanged."""
    code = snippet.read_text(encoding="utf-8")
    names = helper_imports(snippet)
    if not names:
        return code
    stand_ins = stand_in_code(names, importers=f"{pages.relative(snippet)} (below) imports")
    first = f"{MATPLOTLIB_FIRST}\n\n" if "figure" in names else ""
    return f"{first}{stand_ins}\n\n# ---- {pages.relative(snippet)}, as the book runs it ----\n\n{code}"
