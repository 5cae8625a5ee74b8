"""Gold files and symbols from a fix's unified diff.

The diff is read hunk by hunk using the line counts of each `@@ -a,b +c,d @@` header, so a
removed line starting "-- " is never taken for a file header. Changed lines are recorded in
base (old-file) numbering; a run of pure insertions is recorded as (the base line it follows,
its first non-blank text). Symbols come from `ast` of the base file: a changed line belongs to
its innermost enclosing def/class; an insertion belongs to the innermost symbol around the line
before it whose def is indented less than the inserted text.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from gaia_eval.core.errors import InvalidInputError


@dataclass
class FileChange:
    path: str
    created: bool = False
    deleted: bool = False
    changed_lines: set[int] = field(default_factory=set)
    """Removed or rewritten base lines."""
    insertions: list[tuple[int, str]] = field(default_factory=list)
    """(base line the insertion follows, its first non-blank line)."""


def _strip_prefix(name: str) -> str:
    name = name.split("\t", 1)[0].strip()
    if name.startswith(("a/", "b/")):
        name = name[2:]
    return name


def _counts(header: str) -> tuple[int, int, int, int]:
    try:
        old, new = header.split("@@")[1].split()
        a, _, b = old[1:].partition(",")
        c, _, d = new[1:].partition(",")
        return int(a), int(b or 1), int(c), int(d or 1)
    except (IndexError, ValueError) as err:
        msg = f"malformed hunk header {header!r}"
        raise InvalidInputError(msg) from err


def parse_patch(patch: str) -> list[FileChange]:
    """Every file the patch touches, with its changed base lines and insertions."""
    lines = patch.split("\n")
    out: list[FileChange] = []
    i = 0
    cur: FileChange | None = None
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old, new = _strip_prefix(line[4:]), _strip_prefix(lines[i + 1][4:])
            cur = FileChange(
                path=new if old == "/dev/null" else old,
                created=old == "/dev/null",
                deleted=new == "/dev/null",
            )
            out.append(cur)
            i += 2
            continue
        if line.startswith("@@") and cur is not None:
            a, b, _, d = _counts(line)
            old_line = a if b > 0 else a + 1  # a zero-length old side names the line before
            old_left, new_left = b, d
            i += 1
            run_start: int | None = None
            run_has_minus = False
            while i < len(lines) and (old_left > 0 or new_left > 0):
                body = lines[i]
                if body.startswith("\\"):
                    i += 1
                    continue
                tag = body[:1]
                if tag == "-":
                    cur.changed_lines.add(old_line)
                    old_line += 1
                    old_left -= 1
                    run_has_minus = True
                elif tag == "+":
                    if not run_has_minus:
                        if run_start is None:
                            run_start = old_line - 1
                            cur.insertions.append((run_start, ""))
                        if not cur.insertions[-1][1] and body[1:].strip():
                            cur.insertions[-1] = (run_start, body[1:])
                    else:
                        # Replacement text is credited through the lines it replaces.
                        pass
                    new_left -= 1
                else:  # context (a blank context line may have lost its space)
                    old_line += 1
                    old_left -= 1
                    new_left -= 1
                    run_start, run_has_minus = None, False
                i += 1
            continue
        i += 1
    if patch.strip() and not out:
        msg = "names no files (no `--- a/PATH` / `+++ b/PATH` header pair)"
        raise InvalidInputError(msg)
    return out


@dataclass(frozen=True)
class Symbol:
    qualname: str
    start: int
    """First line, decorators included."""
    end: int
    def_line: int
    col: int


def symbols_of(text: str) -> list[Symbol]:
    """Every def/async def/class with its dotted qualname; [] when the file does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    out: list[Symbol] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = prefix + child.name
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                end = child.end_lineno or child.lineno
                out.append(Symbol(qual, start, end, child.lineno, child.col_offset))
                visit(child, qual + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def _innermost(symbols: list[Symbol], line: int) -> Symbol | None:
    best: Symbol | None = None
    for s in symbols:
        if s.start <= line <= s.end and (best is None or s.end - s.start < best.end - best.start):
            best = s
    return best


def _indent(text: str) -> int:
    expanded = text.expandtabs(8)
    return len(expanded) - len(expanded.lstrip(" "))


def gold_symbols(change: FileChange, base_text: str) -> list[str]:
    """Qualnames the change touches in one base file, de-duplicated, in line order."""
    syms = symbols_of(base_text)
    found: dict[str, int] = {}
    for ln in sorted(change.changed_lines):
        s = _innermost(syms, ln)
        if s is not None:
            found.setdefault(s.qualname, ln)
    for after, first in change.insertions:
        indent = _indent(first)
        best: Symbol | None = None
        for s in syms:
            inside = s.start <= after <= s.end and s.col < indent
            if inside and (best is None or s.end - s.start < best.end - best.start):
                best = s
        if best is not None:
            found.setdefault(best.qualname, after)
    return [q for q, _ in sorted(found.items(), key=lambda t: (t[1], t[0]))]


PY_SUFFIXES = (".py", ".pyw")
