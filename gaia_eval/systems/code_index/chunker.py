"""Splitting source text into chunks: Python by `ast`, everything else by line windows.

Python: every def, async def and class (methods and nested classes too) becomes a chunk with
its dotted qualified name and its line span, decorators included; a def inside a function
stays in its parent's chunk. A class chunk holds the class's own
lines (signature, docstring, attributes) without the bodies of its methods, which are chunks
of their own; top-level code between symbols becomes `module` chunks. A chunk longer than the
embed window is split into parts named `name (part i/n)`. A file that does not parse falls
back to line windows, like any other language.
"""

from __future__ import annotations

import ast
import os

from gaia_eval.systems.code_index.protocol import Chunk

MAX_CHUNK_LINES = 80
MAX_CHUNK_CHARS = 2400
FALLBACK_WINDOW = 60

_LANG = {
    ".py": "python", ".pyw": "python", ".pyi": "python", ".js": "javascript",
    ".jsx": "javascript", ".ts": "typescript", ".tsx": "typescript", ".go": "go", ".rs": "rust",
    ".java": "java", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp",
    ".cxx": "cpp", ".rb": "ruby", ".sh": "shell", ".cmake": "cmake",
}  # fmt: skip


def language_of(path: str) -> str:
    return _LANG.get(os.path.splitext(path)[1].lower(), "text")


def _split(  # noqa: PLR0917 - one span of one file, all of it needed
    path: str, lines: list[str], start: int, end: int, name: str | None, kind: str | None, lang: str
) -> list[Chunk]:
    """Chunks for lines[start-1:end], split to the embed window when too long."""
    spans: list[tuple[int, int]] = []
    s = start
    while s <= end:
        e, size = s, 0
        while e <= end and (e - s) < MAX_CHUNK_LINES:
            size += len(lines[e - 1]) + 1
            if size > MAX_CHUNK_CHARS and e > s:
                break
            e += 1
        spans.append((s, e - 1))
        s = e
    out = []
    for i, (s, e) in enumerate(spans):
        label = name if len(spans) == 1 or name is None else f"{name} (part {i + 1}/{len(spans)})"
        content = "\n".join(lines[s - 1 : e])
        if content.strip():
            out.append(Chunk(path, s, e, content, label, kind, lang))
    return out


def fallback_chunks(path: str, text: str) -> list[Chunk]:
    lines = text.split("\n")
    lang = language_of(path)
    out: list[Chunk] = []
    for s in range(1, len(lines) + 1, FALLBACK_WINDOW):
        out.extend(
            _split(path, lines, s, min(s + FALLBACK_WINDOW - 1, len(lines)), None, None, lang)
        )
    return out


def _symbols(tree: ast.Module) -> list[tuple[str, str, int, int, ast.AST]]:
    """(qualname, kind, start incl. decorators, end, node) for every def/class, pre-order."""
    found: list[tuple[str, str, int, int, ast.AST]] = []

    def visit(node: ast.AST, prefix: str, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}{child.name}"
                if isinstance(child, ast.ClassDef):
                    kind = "class"
                else:
                    kind = "method" if in_class else "function"
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                found.append((qual, kind, start, child.end_lineno or child.lineno, child))
                # A def nested in a function stays inside its parent's chunk; only class
                # bodies are carved into one chunk per method.
                if isinstance(child, ast.ClassDef):
                    visit(child, qual + ".", True)
            else:
                visit(child, prefix, in_class)

    visit(tree, "", False)
    return found


def python_chunks(path: str, text: str) -> list[Chunk]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return fallback_chunks(path, text)
    lines = text.split("\n")
    syms = _symbols(tree)
    owner: list[int] = [-1] * (len(lines) + 2)  # innermost symbol per line, -1 = module
    for idx, (_, _, s, e, _) in enumerate(syms):  # pre-order: inner symbols overwrite outer
        for ln in range(s, min(e, len(lines)) + 1):
            owner[ln] = idx
    out: list[Chunk] = []
    lang = language_of(path)
    # Each symbol's own lines, grouped into contiguous runs (a class's runs skip its methods).
    for idx, (qual, kind, s, e, _) in enumerate(syms):
        own = [ln for ln in range(s, min(e, len(lines)) + 1) if owner[ln] == idx]
        runs: list[tuple[int, int]] = []
        for ln in own:
            if runs and runs[-1][1] == ln - 1:
                runs[-1] = (runs[-1][0], ln)
            else:
                runs.append((ln, ln))
        for rs, re_ in runs:
            out.extend(_split(path, lines, rs, re_, qual, kind, lang))
    module_lines = [ln for ln in range(1, len(lines) + 1) if owner[ln] == -1]
    runs = []
    for ln in module_lines:
        if runs and runs[-1][1] == ln - 1:
            runs[-1] = (runs[-1][0], ln)
        else:
            runs.append((ln, ln))
    for rs, re_ in runs:
        out.extend(_split(path, lines, rs, re_, None, "module", lang))
    out.sort(key=lambda c: (c.start_line, c.end_line))
    return out


def chunk_file(path: str, text: str) -> list[Chunk]:
    """The chunks of one file, in line order."""
    if language_of(path) == "python":
        return python_chunks(path, text)
    return fallback_chunks(path, text)


def embed_text(chunk: Chunk) -> str:
    """What the embedder sees: a symbol header line, then the code."""
    # A path that is not UTF-8 carries surrogate escapes, which no tokenizer accepts.
    name = chunk.symbol_name or chunk.file_path.encode("utf-8", "surrogateescape").decode(
        "utf-8", "replace"
    )
    header = f"{chunk.symbol_type or 'symbol'}: {name}"
    return f"{header}\n{chunk.content}"[:MAX_CHUNK_CHARS]
