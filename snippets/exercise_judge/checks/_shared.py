"""Helpers that the checks of several chapters share; each check keeps its own words."""

from __future__ import annotations

import contextlib
import math

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
        raise Fail(*text, expected=expected, found=f"RuntimeError: {shortened}", hint_en=hint[0],
                   hint_zh=hint[1]) from None


def hint_for(found: float, mistakes: dict[float, tuple[str, str]], otherwise: tuple[str, str],
             **tolerance) -> tuple[str, str]:
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
