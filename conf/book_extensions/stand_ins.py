"""Stand-ins for the book's helpers (snippets/measured.py), so that a snippet runs with torch alone.

A snippet imports helpers by name, ``from measured import glue``. Outside the book nothing provides
that module; ``stand_in_code(names)`` is code that does: those helpers' own source, copied from
snippets/measured.py with what they use, except ``glue``, which in the book hands a value to the
prose through myst-nb and here keeps it in the dict ``glued``; the code registers them as the
module ``measured``, so that the snippet runs unchanged after it. The chapter notebooks start with
it (``notebooks``); each snippet's download is it followed by the snippet (``snippet_cells``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import book_settings
from book_extensions import pages

HELPERS = pages.SNIPPETS / "measured.py"
HELPER_MODULE = HELPERS.stem

# `glue` in snippets/measured.py hands the value to myst-nb, which a reader does not have: this takes
# its place. It keeps the value where a reader can look at it and closes a glued figure, as the real
# one does, since the page shows that figure in the prose, not under the cell.
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
# A download whose snippet draws (`figure`) needs matplotlib besides torch: it says so before it runs
# anything, rather than stopping at the first figure with a bare ModuleNotFoundError.
MATPLOTLIB_MESSAGE = "This snippet draws a figure: it needs matplotlib besides torch (pip install matplotlib)."
MATPLOTLIB_FIRST = f'''\
try:
    import matplotlib  # noqa: F401  (this snippet draws a figure)
except ImportError:
    raise SystemExit("{MATPLOTLIB_MESSAGE}")
'''


def helper_imports(snippet: Path) -> list[str]:
    """The names a snippet imports from the helper module; any other way of importing it is refused,
    naming the line, since the stand-in cell provides names, not a module file."""
    found = []
    for node in ast.walk(ast.parse(snippet.read_text(encoding="utf-8"), str(snippet))):
        if isinstance(node, ast.ImportFrom) and node.module == HELPER_MODULE:
            if any(alias.name == "*" for alias in node.names):
                raise ValueError(f"{pages.relative(snippet)}:{node.lineno}: import the helpers by name, not with *")
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.Import) and any(alias.name.split(".")[0] == HELPER_MODULE for alias in node.names):
            raise ValueError(f"{pages.relative(snippet)}:{node.lineno}: write `from {HELPER_MODULE} import <name>`: "
                             "the notebook's stand-in cell provides names")
    return found


def stand_in_code(names: list[str], importers: str = "this chapter's snippets import") -> str:
    """The helpers `names` (and what they use) from snippets/measured.py, glue replaced, registered
    as the module, with one thread as the build's kernel has; `importers` says whose imports they are."""
    source = HELPERS.read_text(encoding="utf-8")
    module = ast.parse(source)
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
        raise ValueError(f"snippets import {', '.join(missing)} from {HELPER_MODULE}, which {pages.relative(HELPERS)} "
                         "does not define")
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
        return "\n".join(lines[first - 1:statement.end_lineno])

    picked = [statement for statement in module.body if id(statement) in chosen]
    imports = sorted({text_of(s) for s in picked if isinstance(s, (ast.Import, ast.ImportFrom))} | {"import sys", "import types"},
                     key=lambda line: (line.startswith("from"), line))
    definitions = [text_of(s) for s in picked if not isinstance(s, (ast.Import, ast.ImportFrom))]
    if "glue" in names:
        definitions.append(GLUE_STAND_IN.rstrip())
    threads = book_settings.RUN_ENV["OMP_NUM_THREADS"]
    exported = ", ".join(f"{name}={name}" for name in sorted(set(names)))
    header = "\n".join([
        f"# Stand-ins for what {importers} from the book's {pages.relative(HELPERS)}",
        *imports,
        "",
        "import torch",
        "",
        f"torch.set_num_threads({threads})  # as in the book's build: float32 sums add up in the same order",
    ])
    registration = "\n".join([
        f'{HELPER_MODULE} = types.ModuleType("{HELPER_MODULE}", "Stand-ins for the book\'s helpers")',
        f"vars({HELPER_MODULE}).update({exported})",
        f'sys.modules["{HELPER_MODULE}"] = {HELPER_MODULE}',
    ])
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
