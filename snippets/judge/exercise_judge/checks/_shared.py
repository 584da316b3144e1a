"""Helpers that the checks of several chapters share; each check keeps its own words."""

from __future__ import annotations

import contextlib
import gc
import math

import torch

from exercise_judge.checking import Fail
from exercise_judge.spies import counted


@contextlib.contextmanager
def explained(fragment: str, text: tuple[str, str], expected: tuple[str, str], hint: tuple[str, str]):
    """Turn a RuntimeError raised inside the block whose message contains `fragment` into a Fail
    that explains it, the error's message being what was found; any other error passes on."""
    try:
        yield
    except RuntimeError as error:
        message = str(error)
        if fragment not in message:
            raise
        shortened = message if len(message) <= 120 else message[:120] + "..."
        raise Fail(
            *text, expected=expected, found=f"RuntimeError: {shortened}", hint_en=hint[0], hint_zh=hint[1]
        ) from None


@contextlib.contextmanager
def collecting_only_what_follows():
    """What is alive when the block begins (torch, the judge, the reader's module, the model) is
    frozen (gc.freeze) until it ends: gc.collect() scans only what came after, and gc.get_objects()
    lists only that. A frozen object is taken to stay alive: one that becomes cyclic garbage inside
    the block, and what it holds, wait for the first full collection after it. Not nested:
    gc.unfreeze() thaws all."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def hint_for(
    found: float, mistakes: dict[float, tuple[str, str]], otherwise: tuple[str, str], **tolerance
) -> tuple[str, str]:
    """The (English, Chinese) hint for a wrong number: that of the known mistake whose value it is
    (math.isclose with `tolerance`), else `otherwise`."""
    return next((hint for value, hint in mistakes.items() if math.isclose(found, value, **tolerance)), otherwise)


def refuse_passes(passes: list, text: tuple[str, str], expected: tuple[str, str], hint: tuple[str, str]) -> None:
    """Fail when `passes` (recorded by spies.autograd_passes) holds a backward pass the exercise rules
    out; the verdict counts them."""
    if passes:
        raise Fail(*text, expected=expected, found=counted(passes), hint_en=hint[0], hint_zh=hint[1])


def graph_nodes(tensor) -> list:
    """Every node of tensor's graph once, from tensor.grad_fn back to the leaves' AccumulateGrad."""
    nodes = [] if tensor.grad_fn is None else [tensor.grad_fn]
    for node in nodes:  # the list grows while it is walked: breadth first
        for parent, _ in node.next_functions:
            if parent is not None and parent not in nodes:
                nodes.append(parent)
    return nodes


def holds_tensor(value) -> bool:
    """A tensor, or a container with a tensor in it: what ctx.save_for_backward should have kept."""
    if isinstance(value, torch.Tensor):
        return True
    if isinstance(value, dict):
        value = list(value.values())
    return isinstance(value, (tuple, list)) and any(holds_tensor(item) for item in value)


def refuse_ctx_attributes(out, call: str, hint: tuple[str, str]) -> None:
    """Fail unless the custom Function that made `out` kept its tensors with ctx.save_for_backward
    (`call`: how the solution should have called it) and none as a plain attribute of ctx."""
    saved = len(out.grad_fn.saved_tensors)
    stashed = sorted(name for name, value in vars(out.grad_fn).items() if holds_tensor(value))
    if stashed or not saved:
        names = ", ".join(f"ctx.{name}" for name in stashed)
        raise Fail(
            f"forward kept its tensors as attributes of ctx ({names}) instead of ctx.save_for_backward"
            if stashed
            else "forward saved nothing with ctx.save_for_backward",
            f"forward 把张量存成了 ctx 的属性（{names}），而不是用 ctx.save_for_backward"
            if stashed
            else "forward 没有用 ctx.save_for_backward 保存任何东西",
            expected=(f"{call}, read back as ctx.saved_tensors", f"{call}，再用 ctx.saved_tensors 取回"),
            found=(
                f"{saved} tensors in ctx.saved_tensors" + (f"; {names}" if stashed else ""),
                f"ctx.saved_tensors 里有 {saved} 个张量" + (f"；{names}" if stashed else ""),
            ),
            hint_en=hint[0],
            hint_zh=hint[1],
        )


def require_function_class(solution, name: str, hint: tuple[str, str]) -> None:
    """Fail unless the solution's `name` is a subclass of torch.autograd.Function (the class of the
    starter file, its static methods filled in)."""
    function_class = getattr(solution, name)
    if not (isinstance(function_class, type) and issubclass(function_class, torch.autograd.Function)):
        raise Fail(
            f"{name} is not a subclass of torch.autograd.Function",
            f"{name} 不是 torch.autograd.Function 的子类",
            expected=f"class {name}(torch.autograd.Function)",
            found=repr(function_class)[:80],
            hint_en=hint[0],
            hint_zh=hint[1],
        )
