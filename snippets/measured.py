"""Helpers shared by the book's snippets.

A snippet runs in three places: the Jupyter kernel of a docs build (myst-nb), pytest (Sybil,
in process) and plain ``python snippets/<chapter>/<idea>.py``. Every helper here behaves the
same in all three, except that glued values reach a page only from the kernel.

- ``glue(name, value)``: hand a number (or a figure) to the page's prose.
- ``figure()``: a matplotlib figure in the book's style, readable in light and dark mode.
- ``saved_tensors()``: count what autograd saves for backward while a block runs.
- ``STOPWATCH``: start a printed line with it when its numbers depend on the machine (timings);
  the snapshot tests then compare that line's words but not its numbers.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field

# Set by the snapshot tests, so that every glued value is part of the reviewed output.
SHOW_GLUE_ENV = "MEASURED_SHOW_GLUE"
STOPWATCH = "⏱"


def glue(name: str, value, *, varies: bool = False) -> None:
    """Hand ``value`` to the page's prose, where ``{glue:text}`name:.1f``` formats it.

    In the docs kernel the value is stored with myst-nb and not displayed; anywhere else
    nothing is printed (myst-nb's own ``glue`` would print it), unless ``MEASURED_SHOW_GLUE``
    is set. One-element tensors become Python numbers, so that the prose can format them.
    A matplotlib figure is closed once glued, so it appears only where the page places it
    (``{glue:figure}``), not also under the cell. ``varies=True`` marks a machine-dependent
    value (a timing): snapshots record that it was glued, not its value.

    Returns None: a returned value, as a cell's last expression, would show up on the page.
    """
    value = _python_scalar(value)
    if _in_kernel():
        from myst_nb import glue as myst_nb_glue

        myst_nb_glue(name, value, display=False)
    elif os.environ.get(SHOW_GLUE_ENV):
        print(f"[glue] {name} {'~' if varies else '='} {_describe(value)}")
    if _is_figure(value):
        import matplotlib.pyplot as plt

        plt.close(value)


def figure(width: float = 6.4, height: float = 3.4):
    """A figure and axes in the book's style: white background, so that dark mode shows it
    on the theme's light card; labels in English or symbols only (no CJK font needed);
    SVG in the docs kernel, with text as paths so that no font has to be installed."""
    import matplotlib

    matplotlib.rcParams.update({
        "svg.fonttype": "path",
        "svg.hashsalt": "autograd-measured",  # stable element ids from one build to the next
        "figure.facecolor": "white",
        "axes.facecolor": "white",
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "font.size": 10,
    })
    if _in_kernel():
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("svg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), layout="constrained")


@dataclass
class SavedTensors:
    """What the pack hook saw: every call, and the distinct storages behind them.

    ``calls`` and ``bytes`` count each saved tensor as autograd reports it; one storage can
    be saved several times (a ReLU's output is also the next Linear's input), so memory is
    ``storages`` and ``storage_bytes``.
    """

    calls: int = 0
    bytes: int = 0
    _storages: dict = field(default_factory=dict)

    def pack(self, tensor):
        self.calls += 1
        self.bytes += tensor.numel() * tensor.element_size()
        storage = tensor.untyped_storage()
        self._storages[storage.data_ptr()] = storage.nbytes()
        # Returning `tensor` itself would let a saved output reference its own graph: a cycle
        # that keeps everything alive when no backward runs. The detached view shares storage.
        return tensor.detach()

    @staticmethod
    def unpack(tensor):
        return tensor

    @property
    def storages(self) -> int:
        return len(self._storages)

    @property
    def storage_bytes(self) -> int:
        return sum(self._storages.values())


@contextmanager
def saved_tensors():
    """``with saved_tensors() as saved: model(x)`` counts what the forward saved for backward."""
    import torch

    saved = SavedTensors()
    with torch.autograd.graph.saved_tensors_hooks(saved.pack, saved.unpack):
        yield saved


def _python_scalar(value):
    if hasattr(value, "numel") and value.numel() == 1:  # a torch tensor holding one number
        return value.item()
    return value


def _is_figure(value) -> bool:
    return type(value).__name__ == "Figure" and type(value).__module__.startswith("matplotlib")


def _describe(value) -> str:
    return f"<figure {value.get_figwidth():g}x{value.get_figheight():g} in>" if _is_figure(value) else repr(value)


def _in_kernel() -> bool:
    if "ipykernel" not in sys.modules:
        return False
    from IPython import get_ipython

    return getattr(get_ipython(), "kernel", None) is not None
