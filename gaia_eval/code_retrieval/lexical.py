"""The lexical baseline: "git grep for the issue's identifiers", ranked by rarity.

Identifiers come from the issue text (code spans, dotted names, code-shaped bare tokens);
the native `GrepIndex` finds their whole-word hits in the files the code index holds; files
and symbols are scored by idf x (1 + ln hit lines), identifiers in more than a quarter of the
files are dropped, and files the issue names by path get a bonus.
"""

from __future__ import annotations

import math
import os
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gaia_eval._native import GrepIndex

MAX_IDENTIFIERS = 40
MIN_IDENTIFIER_CHARS = 3
MAX_DF_SHARE = 0.25

STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "cannot",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yes",
        "get",
        "set",
        "use",
        "used",
        "using",
        "via",
        "one",
        "two",
        "new",
        "old",
        "see",
        "like",
        "want",
        "need",
        "make",
        "way",
        "still",
        "false",
        "none",
        "true",
        "and",
        "as",
        "assert",
        "async",
        "await",
        "break",
        "class",
        "continue",
        "def",
        "del",
        "elif",
        "else",
        "except",
        "finally",
        "for",
        "from",
        "global",
        "if",
        "import",
        "in",
        "is",
        "lambda",
        "nonlocal",
        "not",
        "or",
        "pass",
        "raise",
        "return",
        "try",
        "while",
        "with",
        "yield",
        "self",
        "cls",
        "abs",
        "bool",
        "bytes",
        "callable",
        "chr",
        "dict",
        "dir",
        "enumerate",
        "filter",
        "float",
        "format",
        "getattr",
        "hasattr",
        "hash",
        "help",
        "hex",
        "id",
        "input",
        "int",
        "isinstance",
        "issubclass",
        "iter",
        "len",
        "list",
        "map",
        "max",
        "min",
        "next",
        "object",
        "open",
        "ord",
        "pow",
        "print",
        "property",
        "range",
        "repr",
        "reversed",
        "round",
        "setattr",
        "slice",
        "sorted",
        "staticmethod",
        "str",
        "sum",
        "super",
        "tuple",
        "type",
        "vars",
        "zip",
        "classmethod",
        "exception",
        "error",
        "errors",
        "issue",
        "issues",
        "bug",
        "expected",
        "actual",
        "version",
        "versions",
        "problem",
        "work",
        "works",
        "working",
        "example",
        "examples",
        "code",
        "result",
        "results",
        "output",
        "input",
        "value",
        "values",
        "following",
        "thanks",
        "please",
        "traceback",
        "file",
        "line",
        "lines",
        "call",
        "last",
        "most",
        "recent",
        "test",
        "tests",
        "python",
    ]
)

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FENCE = re.compile(r"```(.*?)```", re.DOTALL)
_TICK = re.compile(r"`([^`\n]+)`")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_SKIP_DOTTED = (".py", ".txt", ".md", ".rst", ".html", ".com", ".org")
_CAMEL = re.compile(r"[a-z][A-Z]")
_PASCAL = re.compile(r"^[A-Z][a-z0-9]+[A-Z]")
_PATH = re.compile(r"[A-Za-z0-9_./\\-]+\.(?:py|pyw|js|ts|go|rs|java|c|h|cpp|hpp|rb)\b")


def _looks_like_code(tok: str) -> bool:
    core = tok.strip("_")
    return (
        "_" in core
        or any(ch.isdigit() for ch in tok)
        or bool(_CAMEL.search(tok))
        or bool(_PASCAL.match(tok))
    )


def extract_identifiers(text: str) -> list[str]:
    """At most 40 identifiers in first-seen order (code spans, dotted names, code-like words)."""
    seen: dict[str, None] = {}

    def add(tok: str) -> None:
        if len(tok) >= MIN_IDENTIFIER_CHARS and tok.lower() not in STOP_WORDS:
            seen.setdefault(tok, None)

    for block in _FENCE.findall(text):
        for tok in _IDENT.findall(block):
            add(tok)
    without_fences = _FENCE.sub(" ", text)
    for span in _TICK.findall(without_fences):
        for tok in _IDENT.findall(span):
            add(tok)
    for dotted in _DOTTED.findall(text):
        if dotted.lower().endswith(_SKIP_DOTTED):
            continue
        for seg in dotted.split("."):
            add(seg)
    for tok in _IDENT.findall(text):
        if _looks_like_code(tok):
            add(tok)
    return list(seen)[:MAX_IDENTIFIERS]


def mentioned_paths(text: str) -> list[str]:
    """Source-file paths named in the text, slashes normalised, './' stripped, de-duplicated."""
    out: dict[str, None] = {}
    for m in _PATH.findall(text):
        p = m.replace("\\", "/").lstrip("./")
        if p:
            out.setdefault(p, None)
    return list(out)


def _path_matches(corpus_path: str, mentioned: str) -> bool:
    if corpus_path == mentioned:
        return True
    a, b = (
        (corpus_path, mentioned) if len(corpus_path) > len(mentioned) else (mentioned, corpus_path)
    )
    return a.endswith("/" + b)


@dataclass
class LexicalResult:
    identifiers: list[str]
    """Identifiers extracted from the query."""
    used: dict[str, float]
    """Identifier -> idf, for those that passed the df cut."""
    files: list[tuple[str, float]]
    """(path, score), best first."""
    symbols: list[tuple[str, str, float]]
    """(path, qualname, score), best first."""


class LexicalBaseline:
    """Grep over a fixed corpus (the files the code index holds), built once per tree state."""

    def __init__(self, files: dict[str, str]) -> None:
        self.paths = sorted(files)
        self.index = GrepIndex([files[p].encode("utf-8", "surrogatepass") for p in self.paths])

    @classmethod
    def from_tree(cls, root: Path, rels: Iterable[str]) -> LexicalBaseline:
        """Build by reading `root / rel` for each rel in C++, without Python-side texts.

        Hits equal `LexicalBaseline({rel: text})` over the texts the code index decoded
        (words and lines are ASCII, so UTF-8 and Latin-1 decoding change neither); a file
        that cannot be read has no hits, as one the code index skipped has none.
        """
        base = cls.__new__(cls)
        base.paths = sorted(set(rels))
        top = os.fspath(root)
        base.index = GrepIndex.from_paths([os.path.join(top, p) for p in base.paths])
        return base

    def search(
        self,
        query: str,
        symbols_of: dict[str, list[tuple[int, int, str]]] | None = None,
    ) -> LexicalResult:
        """Rank files (and symbols, given each file's (start, end, qualname) spans)."""
        idents = extract_identifiers(query)
        n = max(len(self.paths), 1)
        file_score: dict[int, float] = defaultdict(float)
        sym_score: dict[tuple[str, str], float] = defaultdict(float)
        used: dict[str, float] = {}
        hits = self.index.query(idents) if idents else None
        if hits is not None and len(hits.word):
            bounds = np.searchsorted(hits.word, np.arange(len(idents) + 1))
            for wi, ident in enumerate(idents):
                b, e = int(bounds[wi]), int(bounds[wi + 1])
                if b == e:
                    continue
                files = hits.file[b:e]
                lines = hits.line[b:e]
                uniq, first, per_file = np.unique(files, return_index=True, return_counts=True)
                df = len(uniq)
                if df / n > MAX_DF_SHARE:
                    continue
                idf = math.log(n / df)
                used[ident] = idf
                for f, start, cnt in zip(
                    uniq.tolist(), first.tolist(), per_file.tolist(), strict=True
                ):
                    file_score[f] += idf * (1.0 + math.log(cnt))
                    if symbols_of is None:
                        continue
                    path = self.paths[f]
                    spans = symbols_of.get(path, [])
                    per_sym: dict[str, int] = defaultdict(int)
                    for ln in lines[start : start + cnt].tolist():
                        q = innermost(spans, ln)
                        if q is not None:
                            per_sym[q] += 1
                    for q, k in per_sym.items():
                        sym_score[(path, q)] += idf * (1.0 + math.log(k))
        bonus = 2.0 * (max(used.values()) if used else math.log(n))
        for mention in mentioned_paths(query):
            for f, path in enumerate(self.paths):
                if _path_matches(path, mention):
                    file_score[f] += bonus
        ranked_files = sorted(
            ((self.paths[f], s) for f, s in file_score.items()), key=lambda t: (-t[1], t[0])
        )
        ranked_syms = sorted(
            ((p, q, s) for (p, q), s in sym_score.items()), key=lambda t: (-t[2], t[0], t[1])
        )
        return LexicalResult(idents, used, ranked_files, ranked_syms)


def innermost(spans: list[tuple[int, int, str]], line: int) -> str | None:
    """The qualname of the smallest (start, end, qualname) span containing `line`."""
    best: tuple[int, str] | None = None
    for s, e, q in spans:
        if s <= line <= e and (best is None or e - s < best[0]):
            best = (e - s, q)
    return best[1] if best else None
