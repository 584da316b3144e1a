"""What a solution did, not only what it returned: the instruments of the method checks.

Public names only, so that they work on every supported torch:

* autograd_passes() records every backward pass: each call of torch.autograd.backward (which
  Tensor.backward calls) and of torch.autograd.grad, with the file of the code that asked for it.
  The wrappers are installed by the judge before it imports the reader's file, so that a
  `from torch.autograd import grad` there binds the wrapper too; outside a recording they only
  pass the call on.
* TorchCalls, a TorchFunctionMode, records the torch functions and Tensor methods called while
  it is active, with the tensor each was called on and that tensor's grad_fn at that moment.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
from dataclasses import dataclass

import torch
import torch.overrides
from torch.overrides import TorchFunctionMode

TORCH = os.path.dirname(os.path.realpath(torch.__file__)) + os.sep
# Frames between the reader's call and the wrapper: Tensor.backward, torch-function dispatch, this file.
PASSING = {os.path.realpath(path) for path in
           (torch.Tensor.backward.__code__.co_filename, torch.overrides.__file__, __file__)}

_recordings: list[list[Pass]] = []


@dataclass
class Pass:
    """One backward pass: `kind` is "backward()" or "torch.autograd.grad"; `caller` the file whose code asked."""
    kind: str
    caller: str
    create_graph: bool

    def by(self, file: str) -> bool:
        return os.path.realpath(self.caller) == os.path.realpath(file)

    @property
    def origin(self) -> str:
        """Who asked for it, in words: a torch module by its public name, or a file name."""
        if not self.caller.startswith(TORCH):
            return os.path.basename(self.caller)
        inside = self.caller[len(TORCH):].replace(os.sep, "/")
        if inside.startswith(("_functorch/", "func/")):
            return "torch.func"
        if inside == "autograd/functional.py":
            return "torch.autograd.functional"
        return f"torch/{inside}"


def _caller() -> str:
    frame = sys._getframe(2)  # 0: here, 1: the wrapper, 2: whoever called it
    while frame is not None and os.path.realpath(frame.f_code.co_filename) in PASSING:
        frame = frame.f_back
    return os.path.realpath(frame.f_code.co_filename) if frame is not None else ""


def _wrap(original, kind: str):
    signature = inspect.signature(original)

    @functools.wraps(original)
    def spy(*args, **kwargs):
        if _recordings:
            try:
                create_graph = bool(signature.bind(*args, **kwargs).arguments.get("create_graph", False))
            except TypeError:  # wrong arguments: the original raises the reader's error below
                create_graph = False
            found = Pass(kind, _caller(), create_graph)
            for recording in _recordings:
                recording.append(found)
        return original(*args, **kwargs)

    spy.judge_spy = True
    return spy


def install() -> None:
    """Replace torch.autograd.backward and torch.autograd.grad by recording wrappers (once)."""
    for name, kind in (("backward", "backward()"), ("grad", "torch.autograd.grad")):
        original = getattr(torch.autograd, name)
        if not getattr(original, "judge_spy", False):
            setattr(torch.autograd, name, _wrap(original, kind))


@contextlib.contextmanager
def autograd_passes():
    """The backward passes run inside the `with` block, as a list of Pass."""
    install()
    recording: list[Pass] = []
    _recordings.append(recording)
    try:
        yield recording
    finally:
        _recordings.remove(recording)


def counted(passes: list[Pass]) -> tuple[str, str]:
    """'2 × backward(), 1 × torch.autograd.grad (by torch.func)': the passes in a few words, in English and Chinese."""
    def said(by: str, separator: str) -> str:
        kinds: dict[str, int] = {}
        for found in passes:
            kind = found.kind + (by.format(found.origin) if found.caller.startswith(TORCH) else "")
            kinds[kind] = kinds.get(kind, 0) + 1
        return separator.join(f"{n} × {kind}" for kind, n in kinds.items())
    return said(" (by {})", ", "), said("（由 {} 发起）", "、")


@dataclass
class Call:
    name: str  # the function's or method's name: "add_", "detach", "mul", ...
    tensor: torch.Tensor | None  # the tensor it was called on (its first argument)
    grad_fn: object  # that tensor's grad_fn when the call was made (an in-place edit changes it)


class TorchCalls(TorchFunctionMode):
    """`with TorchCalls() as seen:` records in seen.calls every torch function and Tensor method called."""

    def __init__(self):
        super().__init__()
        self.calls: list[Call] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        first = args[0] if args and isinstance(args[0], torch.Tensor) else None
        self.calls.append(Call(getattr(func, "__name__", ""), first, first.grad_fn if first is not None else None))
        return func(*args, **(kwargs or {}))
