"""What a solution did, not only what it returned: the instruments of the method checks.

* autograd_passes() records every backward pass where torch runs it from Python: the engine object
  that torch.autograd.backward (which Tensor.backward calls) and torch.autograd.grad hand each pass
  to is replaced by a recording one, so that no name the reader binds, unwraps or reloads leads
  around it. A pass that reaches torch's engine by another route (an engine object of the reader's
  own, torch.ops.aten._backward from C++) is not recorded but counted: the engine numbers each pass
  it runs, and a recording that ends with more numbers used than passes recorded fails.
* TorchCalls, a TorchFunctionMode, records the torch functions and Tensor methods called while
  it is active, with the tensor each was called on and that tensor's grad_fn at that moment.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
from dataclasses import dataclass

import torch
import torch.autograd.graph
import torch.overrides
from torch.overrides import TorchFunctionMode

from exercise_judge.checking import Fail

# The private names, all here. torch has no public hook on "a backward pass begins", so the judge
# records where every Python route meets: Variable._execution_engine, the object whose run_backward
# torch.autograd.graph._engine_run_backward calls on every torch in TORCH_RANGE, an instance
# of torch._C._ImperativeEngine (every instance drives torch's one engine). The engine gives each pass
# (a graph task) the next number of one process-wide counter; torch._C._current_graph_task_id tells
# a hook the number of the pass running it.
_ENGINE = torch._C._ImperativeEngine
_VARIABLE = sys.modules["torch.autograd.variable"].Variable  # torch.autograd.variable is also a function
_graph_task_id = torch._C._current_graph_task_id

TORCH = os.path.dirname(os.path.realpath(torch.__file__)) + os.sep
# Frames between the reader's call and the engine: Tensor.backward, torch-function dispatch (and the
# __torch_function__ of any mode active, see _caller), torch.autograd's backward and grad,
# _engine_run_backward, grad's is_grads_batched vmap, this file.
PASSING = {
    os.path.realpath(module.__file__)
    for module in (
        sys.modules[torch.Tensor.backward.__module__],
        torch.overrides,
        torch.autograd,
        torch.autograd.graph,
        torch._vmap_internals,
        sys.modules[__name__],
    )
}

_recordings: list[list[Pass]] = []
_seen = 0  # graph tasks the judge knows of: passes recorded, and its own counting passes


@dataclass
class Pass:
    """One backward pass: `kind` is "backward()" (it accumulates into .grad) or "torch.autograd.grad";
    `caller` the file whose code asked; create_graph and retain_graph as the pass ran (retain_graph
    left out or None is create_graph's value)."""

    kind: str
    caller: str
    create_graph: bool
    retain_graph: bool = False

    def by(self, file: str) -> bool:
        return os.path.realpath(self.caller) == os.path.realpath(file)

    @property
    def origin(self) -> str:
        """Who asked for it, in words: a torch module by its public name, or a file name."""
        if not self.caller.startswith(TORCH):
            return os.path.basename(self.caller)
        inside = self.caller[len(TORCH) :].replace(os.sep, "/")
        if inside.startswith(("_functorch/", "func/")):
            return "torch.func"
        if inside == "autograd/functional.py":
            return "torch.autograd.functional"
        return f"torch/{inside}"


def _caller() -> str:
    frame = sys._getframe(2)  # 0: here, 1: run_backward, 2: whoever called it
    while frame is not None and (
        os.path.realpath(frame.f_code.co_filename) in PASSING or frame.f_code.co_name == "__torch_function__"
    ):
        frame = frame.f_back
    return os.path.realpath(frame.f_code.co_filename) if frame is not None else ""


# run_backward's parameters as torch's C++ parses them (python_engine.cpp), defaults included.
def _run_backward_parameters(
    tensors, grad_tensors, keep_graph, create_graph, inputs=None, allow_unreachable=False, accumulate_grad=False
):
    pass


_PARAMETERS = inspect.signature(_run_backward_parameters)


class _RecordingEngine(_ENGINE):
    """The engine torch.autograd calls, recording each pass while a recording is open."""

    def run_backward(self, *args, **kwargs):
        global _seen
        _seen += 1
        if _recordings:
            try:
                bound = _PARAMETERS.bind(*args, **kwargs)
                bound.apply_defaults()
                arguments = bound.arguments
            except TypeError:  # wrong arguments: the engine raises the reader's error below
                arguments = {"keep_graph": False, "create_graph": False, "accumulate_grad": False}
            found = Pass(
                "backward()" if arguments["accumulate_grad"] else "torch.autograd.grad",
                _caller(),
                bool(arguments["create_graph"]),
                bool(arguments["keep_graph"]),
            )
            for recording in _recordings:
                recording.append(found)
        return super().run_backward(*args, **kwargs)


def install() -> None:
    """Put the recording engine in the place torch.autograd takes its engine from (once)."""
    if not isinstance(_VARIABLE._execution_engine, _RecordingEngine):
        _VARIABLE._execution_engine = _RecordingEngine()


class _Counter:
    """A pass of the judge's own, run on a plain engine object, whose hook reads its graph task's number."""

    def __init__(self):
        with torch.enable_grad(), torch._C.DisableTorchFunction():
            self.leaf = torch.zeros((), requires_grad=True)
            self.root = self.leaf.clone()  # CloneBackward0 saves nothing: no saved-tensor hook sees it
        self.one = torch.ones(())
        self.number = -1
        self.root.register_hook(self._read)

    def _read(self, grad):
        self.number = _graph_task_id()

    def __call__(self) -> int:
        """The number of this pass: every pass the engine ran before it took a smaller one."""
        global _seen
        _ENGINE().run_backward((self.root,), (self.one,), True, False, (self.leaf,), False, False)
        _seen += 1
        return self.number


_counter: _Counter | None = None


@contextlib.contextmanager
def autograd_passes():
    """The backward passes run inside the `with` block, as a list of Pass. Fails (at the end of the
    block) when the engine ran more passes than were recorded."""
    global _counter
    install()
    if _counter is None:
        _counter = _Counter()
    recording: list[Pass] = []
    first, seen = _counter(), _seen
    _recordings.append(recording)
    try:
        yield recording
    finally:
        _recordings.remove(recording)
    # Not reached when the block raised: that error is the verdict.
    known = _seen - seen  # passes the judge knows of between its two counting passes
    unseen = _counter() - first - 1 - known
    if unseen > 0:
        raise Fail(
            f"{unseen} backward passes ran by a route the judge does not see: not Tensor.backward(), "
            f"torch.autograd.backward or torch.autograd.grad",
            f"有 {unseen} 次反向传播走了评测看不到的路：不是 Tensor.backward()、torch.autograd.backward "
            f"或 torch.autograd.grad",
            expected=(
                "every backward pass through Tensor.backward(), torch.autograd.backward or torch.autograd.grad",
                "每次反向传播都经过 Tensor.backward()、torch.autograd.backward 或 torch.autograd.grad",
            ),
            found=(
                f"{unseen} passes by another route, {len(recording)} recorded",
                f"{unseen} 次走了别的路，{len(recording)} 次被记录",
            ),
            hint_en="run backward passes with loss.backward() or torch.autograd.grad: the judge checks how "
            "your code computes gradients, and a pass that goes around torch.autograd (an engine "
            "object of your own, torch.ops.aten._backward) cannot be checked",
            hint_zh="用 loss.backward() 或 torch.autograd.grad 做反向传播：评测要检查你的代码怎样求梯度，"
            "绕过 torch.autograd 的反向传播（自己建的引擎对象、torch.ops.aten._backward）没法检查",
        )


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
