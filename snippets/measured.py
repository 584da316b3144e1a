"""Helpers shared by the book's snippets.

A snippet runs in three places: the Jupyter kernel of a docs build (myst-nb), pytest (Sybil,
in process) and plain ``python snippets/<chapter>/<idea>.py``. Every helper here behaves the
same in all three, except that glued values reach a page only from the kernel.

- ``glue(name, value)``: hand a number (or a figure) to the page's prose.
- ``figure()``: a matplotlib figure in the book's style, readable in light and dark mode.
- ``saved_tensors()``: count what autograd saves for backward while a block runs.
- ``draw_graph(tensor)``: an SVG of the backward graph, walked from the tensor's ``grad_fn``.
- ``TIMING``: start a printed line with it when its numbers depend on the machine (timings);
  the snapshot tests then compare that line's words but not its numbers. (Plain ASCII: an
  emoji such as a stopwatch shows as an empty box where the code font lacks it.)
- ``roughly(value)``: print a float whose digits are rounding noise (``~3.0e-08``); the snapshot
  tests compare its mark but not its digits.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field

# Set by the snapshot tests, so that every glued value is part of the reviewed output.
SHOW_GLUE_ENV = "MEASURED_SHOW_GLUE"
TIMING = "timing:"
ROUGHLY = "~"


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


def roughly(value: float, spec: str = ".1e") -> str:
    """``~3.0e-08``: a float made of rounding error, such as the gap between two sums added up
    in different orders. Its digits depend on the CPU's kernels; its size is the result."""
    return f"{ROUGHLY}{value:{spec}}"


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


class GraphDrawing:
    """An SVG document; Jupyter and myst-nb show it through ``_repr_svg_``, glue() stores it."""

    def __init__(self, svg: str, nodes: list[str], saved: int, freed: int):
        self.svg, self.nodes, self.saved, self.freed = svg, nodes, saved, freed

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return (f"<backward graph: {', '.join(self.nodes)}; "
                f"saved tensors: {self.saved} alive, {self.freed} freed>")


def draw_graph(tensor, names: dict | None = None) -> GraphDrawing:
    """Draw the backward graph that ends in ``tensor``, from the live ``grad_fn`` objects.

    Each box is a node, named as autograd names it, with the tensors it saved for backward
    (``_saved_*`` attributes) and their shapes; ``AccumulateGrad`` boxes show the leaf they
    feed, by the name given in ``names`` ({tensor: "x"}) if any. Arrows point the way
    backward travels: from the output towards the leaves. Plain SVG, no Graphviz needed;
    transparent, with light boxes and mid-grey arrows, so it reads on a light and a dark page
    (the page marks its figure ``:figclass: graph-drawing`` to keep the theme's dark-mode
    filter off it).
    """
    import torch

    leaf_names = {id(t): name for t, name in (names or {}).items()}
    order, level, edges = [], {}, []
    todo = [(tensor.grad_fn, 0)]
    while todo:  # longest distance from the output, so that every edge points downwards
        node, depth = todo.pop(0)
        if node is None:
            continue
        if node not in level:
            order.append(node)
        if level.get(node, -1) < depth:
            level[node] = depth
            todo += [(nxt, depth + 1) for nxt, _ in node.next_functions]
    for node in order:
        edges += [(node, nxt) for nxt, _ in node.next_functions if nxt is not None]

    def lines(node):
        name = type(node).__name__
        if hasattr(node, "variable"):
            leaf = node.variable
            label = leaf_names.get(id(leaf), "leaf")
            return [name, f"{label} {list(leaf.shape)}"]
        saved = []
        for attr in sorted(a for a in dir(node) if a.startswith("_saved_")):
            try:
                value = getattr(node, attr)
            except RuntimeError:  # freed by a backward that already ran
                saved.append(f"{attr[7:]}: freed")
                continue
            if isinstance(value, torch.Tensor):
                saved.append(f"{attr[7:]}: {list(value.shape)}")
        return [name, *saved]

    char_w, line_h, pad, gap_x, gap_y = 7.2, 16, 8, 24, 36
    boxes, rows = {}, {}
    for node in order:
        rows.setdefault(level[node], []).append(node)
    widths = {n: max(len(t) for t in lines(n)) * char_w + 2 * pad for n in order}
    heights = {n: len(lines(n)) * line_h + pad for n in order}
    total_w = max(sum(widths[n] for n in row) + gap_x * (len(row) - 1) for row in rows.values())
    y = pad
    for depth in sorted(rows):
        row = rows[depth]
        x = pad + (total_w - sum(widths[n] for n in row) - gap_x * (len(row) - 1)) / 2
        for node in row:
            boxes[node] = (x, y, widths[node], heights[node])
            x += widths[node] + gap_x
        y += max(heights[n] for n in row) + gap_y
    width, height = total_w + 2 * pad, y - gap_y + pad
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" '
           'font-size="12">',
           '<title>backward graph</title>',
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#777777"/></marker></defs>']
    for src, dst in edges:
        sx, sy, sw, sh = boxes[src]
        dx, dy, dw, _ = boxes[dst]
        out.append(f'<line x1="{sx + sw / 2:.1f}" y1="{sy + sh:.1f}" x2="{dx + dw / 2:.1f}" y2="{dy:.1f}" '
                   'stroke="#777777" stroke-width="1.2" marker-end="url(#arrow)"/>')
    for node in order:
        x, y0, w, h = boxes[node]
        leaf = hasattr(node, "variable")
        fill, stroke = ("#e8f3e8", "#2e7d32") if leaf else ("#eef2fb", "#3057a8")
        out.append(f'<rect x="{x:.1f}" y="{y0:.1f}" width="{w:.1f}" height="{h:.1f}" rx="4" '
                   f'fill="{fill}" stroke="{stroke}"/>')
        for i, line in enumerate(lines(node)):
            weight = ' font-weight="bold"' if i == 0 else ""
            out.append(f'<text x="{x + pad:.1f}" y="{y0 + pad / 2 + (i + 0.8) * line_h:.1f}" fill="#1a1a1a"{weight}>'
                       f'{_escape(line)}</text>')
    out.append("</svg>")
    saved = [line for node in order for line in lines(node)[1:] if not hasattr(node, "variable")]
    freed = sum(line.endswith(": freed") for line in saved)
    return GraphDrawing("\n".join(out), [type(n).__name__ for n in order], len(saved) - freed, freed)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _python_scalar(value):
    if hasattr(value, "numel") and value.numel() == 1:  # a torch tensor holding one number
        return value.item()
    return value


def _is_figure(value) -> bool:
    return type(value).__name__ == "Figure" and type(value).__module__.startswith("matplotlib")


def _describe(value) -> str:
    if _is_figure(value):
        return f"<figure {value.get_figwidth():g}x{value.get_figheight():g} in>"
    return repr(value)


def _in_kernel() -> bool:
    if "ipykernel" not in sys.modules:
        return False
    from IPython import get_ipython

    return getattr(get_ipython(), "kernel", None) is not None
