"""The canaries' register: each workaround of another package's internals, the file holding it, the
packages it reads, what it assumes, and the check that says what of that no longer holds; and
``package_file``, where the canaries find an installed package's files."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any, Callable


@dataclass(frozen=True)
class Workaround:
    guards: str  # the file holding the workaround, from the repository root
    packages: tuple[str, ...]  # the distributions whose internals it relies on
    assumes: str
    check: Callable[[Any], list[str]]

    def problems(self, upstream: Any = None) -> list[str]:
        read = ", ".join(f"{package} {version(package)}" for package in self.packages)
        return [f"{self.guards}: with {read}: {problem}" for problem in self.check(upstream)]


WORKAROUNDS: dict[str, Workaround] = {}


def workaround(name: str, guards: str, packages: str, assumes: str):
    def register(check):
        WORKAROUNDS[name] = Workaround(guards, tuple(packages.split()), assumes, check)
        return check

    return register


def package_file(package: str, *parts: str) -> Path:
    return Path(importlib.import_module(package).__file__).parent.joinpath(*parts)
