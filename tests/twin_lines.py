"""The two language trees are line-aligned: line N of docs/zh/<page> and of docs/en/<page> are the
same heading, paragraph, fence or list item, and carry the same markup.

``skeleton`` is what a line must share with its twin: its labels, its fences (with their directive),
its directive options (by name: an `:alt:` text is prose), and its roles, in any order (word order
differs), with the content that is no prose (a glue key, a claim, a document, a download's or a
reference's target). ``unpaired_edits`` reads
the history: a commit that changes line N of a page and not line N of its twin breaks the rule,
unless its message holds a line ``Twin-waiver: docs/<lang>/<page>`` naming the page it let drift.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from book_extensions import pages

FENCE = re.compile(r"^\s*(`{3,}|:{3,})(\{[^}]*\})?")
OPTION = re.compile(r"^\s*:([\w-]+):")
LABEL = re.compile(r"^\((.+)\)=\s*$")
# Roles whose content is the same in both languages, and, for the others, the part that is.
TARGET = re.compile(r"<([^<>]*)>\s*$")
PROSE_ROLES = {"download", "ref"}  # {download}`title <target>`, {ref}`text <label>`: only the target
WAIVER = re.compile(r"^Twin-waiver:\s*(\S+)\s*$", re.MULTILINE)
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)


def skeleton(page: pages.Page) -> list[tuple]:
    """Per line of the page (index 0 is line 1): what its twin's line must hold too."""
    roles: dict[int, list[tuple[str, str]]] = {}
    for role in page.roles:
        content = role.content
        if role.name in PROSE_ROLES:
            content = (TARGET.search(content) or re.match(r"(.*)", content)).group(1)
        roles.setdefault(role.line, []).append((role.name, content))
    lines = []
    for number, text in enumerate(page.text.splitlines(), start=1):
        fence = FENCE.match(text)
        option = OPTION.match(text)
        label = LABEL.match(text)
        lines.append(
            (
                fence.groups() if fence else None,
                option.group(1) if option else None,
                label.group(1) if label else None,
                tuple(sorted(roles.get(number, ()))),
            )
        )
    return lines


def misaligned(zh: pages.Page, en: pages.Page) -> list[str]:
    """Where two twin pages are not line-aligned, page and line named."""
    zh_lines, en_lines = skeleton(zh), skeleton(en)
    found = []
    if len(zh_lines) != len(en_lines):
        found.append(
            f"{pages.relative(zh.path)} has {len(zh_lines)} lines, {pages.relative(en.path)} "
            f"{len(en_lines)}: twin pages keep the same number of lines"
        )
    for number, (ours, theirs) in enumerate(zip(zh_lines, en_lines), start=1):
        if ours != theirs:
            found.append(
                f"{pages.relative(zh.path)}:{number} and {pages.relative(en.path)}:{number} differ "
                f"in their markup: zh {_describe(ours)}, en {_describe(theirs)}"
            )
    return found


def _describe(line: tuple) -> str:
    fence, option, label, roles = line
    parts = (
        ([f"fence {''.join(p for p in fence if p)}"] if fence else [])
        + ([f"option :{option}:"] if option else [])
        + ([f"label ({label})="] if label else [])
        + [f"{{{name}}}`{content}`" for name, content in roles]
    )
    return ", ".join(parts) or "nothing"


def changed_lines(diff: str) -> set[tuple[str, int]]:
    """From a `git diff -U0` of one file: ("-", n) for each old line removed, ("+", n) for each new line."""
    lines = set()
    for old, old_count, new, new_count in HUNK.findall(diff):
        lines |= {("-", n) for n in range(int(old), int(old) + int(old_count or 1))}
        lines |= {("+", n) for n in range(int(new), int(new) + int(new_count or 1))}
    return lines


def unpaired_edits(repo: Path, base: str, languages=pages.LANGUAGES) -> list[str]:
    """Every commit after `base` that changed a line of a page and not the same line of its twin."""

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout

    trees = [f"docs/{language}/" for language in languages]
    found = []
    for commit in git("rev-list", "--reverse", "--no-merges", f"{base}..HEAD").split():
        message = git("log", "-1", "--format=%B", commit)
        waived = set(WAIVER.findall(message))
        touched = [
            path
            for path in git("diff-tree", "--no-commit-id", "--name-only", "-r", "--root", commit).split()
            if path.startswith(tuple(trees)) and path.endswith(".md")
        ]
        names = {path.split("/", 2)[2] for path in touched}
        for name in sorted(names):
            edits = {
                tree: changed_lines(git("diff", "-U0", "--no-color", f"{commit}^", commit, "--", tree + name))
                for tree in trees
            }
            for tree, other in (trees, trees[::-1]):
                missing = sorted(edits[tree] - edits[other], key=lambda edit: (edit[1], edit[0]))
                if missing and tree + name not in waived:
                    where = ", ".join(f"line {n}" + (" (removed)" if sign == "-" else "") for sign, n in missing[:8])
                    found.append(
                        f'{commit[:10]} "{git("log", "-1", "--format=%s", commit).strip()}" changes '
                        f"{tree}{name} at {where}, and not {other}{name} there "
                        f"(a commit meant to do so says 'Twin-waiver: {tree}{name}')"
                    )
    return found
