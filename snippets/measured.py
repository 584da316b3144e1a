"""Helpers shared by the book's snippets.

A snippet runs in three places: the Jupyter kernel of a docs build (myst-nb), pytest (Sybil,
in process) and plain ``python snippets/<chapter>/<idea>.py``. Every helper here behaves the
same in all three, except that glued values reach a page only from the kernel.
"""

from __future__ import annotations

import os
import sys

# Set by the snapshot tests, so that every glued value is part of the reviewed output.
SHOW_GLUE_ENV = "MEASURED_SHOW_GLUE"


def glue(name: str, value):
    """Hand ``value`` to the page's prose, where ``{glue:text}`name:.1f``` formats it.

    In the docs kernel the value is stored with myst-nb and not displayed; anywhere else
    nothing is printed (myst-nb's own ``glue`` would print it), unless ``MEASURED_SHOW_GLUE``
    is set. One-element tensors become Python numbers, so that the prose can format them.
    Returns None: a returned value, as a cell's last expression, would show up on the page.
    """
    value = _python_scalar(value)
    if _in_kernel():
        from myst_nb import glue as myst_nb_glue

        myst_nb_glue(name, value, display=False)
    elif os.environ.get(SHOW_GLUE_ENV):
        print(f"[glue] {name} = {value!r}")


def _python_scalar(value):
    if hasattr(value, "numel") and value.numel() == 1:  # a torch tensor holding one number
        return value.item()
    return value


def _in_kernel() -> bool:
    if "ipykernel" not in sys.modules:
        return False
    from IPython import get_ipython

    return getattr(get_ipython(), "kernel", None) is not None
