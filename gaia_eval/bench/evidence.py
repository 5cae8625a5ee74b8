"""Evidence kernel vs a straightforward Python implementation (normalize + str.find).

Workload (issue 3): one 6 MB paged document, 1,000 chunks in document order (re-spaced
the way a chunker re-joins words, with overlap) and 100 quotes (half labelled with a
page, a tenth with a `near` hint). Both sides do the whole job: normalize the document,
find page markers, locate every chunk with the cursor walk and its pages, resolve every
quote within its page.
"""

from __future__ import annotations

import bisect
import random
import re
from collections.abc import Callable, Sequence

from gaia_eval.bench.common import BenchRow, time_interleaved

TITLE = "evidence: locate chunks + resolve quotes"

_MARKER = re.compile(r"\[Page ([0-9]{1,9})\]")


def _workload(
    doc_chars: int, n_chunks: int, n_quotes: int
) -> tuple[str, list[str], list[tuple[str, int | None, str | None]]]:
    rng = random.Random(20260930)
    vocab = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 11)))
        for _ in range(5000)
    ]
    parts: list[str] = []
    size, page = 0, 1
    while size < doc_chars:
        if size >= page * 3000 or (page == 1 and not parts):
            parts.append(f"\n\n[Page {page}]\n")
            page += 1
        word = rng.choice(vocab)
        sep = rng.choice([" ", " ", " ", "\n", "  ", "\t"])
        parts.append(word + sep)
        size += len(word) + len(sep)
    text = "".join(parts)
    words = text.split()
    per = len(words) // n_chunks
    overlap = per // 8
    chunks = [" ".join(words[max(0, i * per - overlap) : (i + 1) * per]) for i in range(n_chunks)]
    norm = " ".join(words)
    markers = [(m.start(), int(m.group(1))) for m in _MARKER.finditer(norm)]
    offs = [o for o, _ in markers]
    quotes: list[tuple[str, int | None, str | None]] = []
    for k in range(n_quotes):
        quote = "[Page"
        while "[Page" in quote:  # a labelled quote lies within one page
            start = norm.index(" ", rng.randrange(len(norm) - 400)) + 1
            quote = norm[start : start + 120].rsplit(" ", 1)[0]
        page = markers[max(bisect.bisect_right(offs, start) - 1, 0)][1]
        near = norm[start : start + 20] if k % 10 == 0 else None
        quotes.append(("\n".join(quote.split(" ")), page if k % 2 == 0 else None, near))
    return text, chunks, quotes


_SPACES = re.compile(r"\s+")


def _split_join(text: str) -> str:
    return " ".join(text.split())


def _regex(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def _python(
    text: str,
    chunks: list[str],
    quotes: list[tuple[str, int | None, str | None]],
    normalize: Callable[[str], str] = _split_join,
) -> tuple[list[tuple[int, int, tuple[int, ...]] | None], list[int]]:
    norm = normalize(text)
    markers = [(m.start(), int(m.group(1))) for m in _MARKER.finditer(norm)]
    offs = [o for o, _ in markers]

    def page_at(pos: int) -> int:
        return markers[max(bisect.bisect_right(offs, pos) - 1, 0)][1]

    located: list[tuple[int, int, tuple[int, ...]] | None] = []
    cursor = 0
    for chunk in chunks:
        c = normalize(chunk)
        pos = norm.find(c, cursor)
        if pos < 0:
            located.append(None)
            continue
        first, last = page_at(pos), page_at(pos + len(c) - 1)
        located.append((pos, pos + len(c), tuple(range(first, last + 1))))
        cursor = pos
    starts: list[int] = []
    for quote, page, near in quotes:
        q = normalize(quote)
        seg = (0, len(norm))
        if page is not None:
            k = next(i for i, (_, n) in enumerate(markers) if n == page)
            seg = (0 if k == 0 else offs[k], offs[k + 1] if k + 1 < len(offs) else len(norm))
        begin = seg[0]
        if near is not None:
            hint = norm.find(normalize(near), seg[0], seg[1])
            begin = hint if hint >= 0 else begin
        pos = norm.find(q, begin, seg[1])
        starts.append(pos if pos >= 0 else norm.find(q, seg[0], seg[1]))
    return located, starts


def _native(
    text: str, chunks: list[str], quotes: list[tuple[str, int | None, str | None]]
) -> tuple[Sequence[tuple[int, int, tuple[int, ...]] | None], list[int]]:
    from gaia_eval.retrieval.evidence import (
        DocumentText,
        EvidenceLabel,
        locate_chunks,
        resolve_labels,
    )

    # The calls the retrieval runner makes: one document, its chunks, then every label.
    doc = DocumentText("bench", text)
    located = locate_chunks(doc, chunks)  # spans in arrays; a chunk's object when asked
    labels = [EvidenceLabel(f"q{i}", "bench", q, p, n) for i, (q, p, n) in enumerate(quotes)]
    starts = [ev.start or 0 for ev in resolve_labels({"bench": doc}, labels)]
    return located, starts


def run(quick: bool) -> list[BenchRow]:
    doc_chars = 600_000 if quick else 6_000_000
    text, chunks, quotes = _workload(doc_chars, 1000, 100)
    want = _native(text, chunks, quotes)
    if _python(text, chunks, quotes) != want or _python(text, chunks, quotes, _regex) != want:
        msg = "evidence bench: kernel and Python disagree; fix before timing"
        raise AssertionError(msg)
    times = time_interleaved(
        {
            "native": lambda: _native(text, chunks, quotes),
            "split": lambda: _python(text, chunks, quotes),
            "regex": lambda: _python(text, chunks, quotes, _regex),
        },
        repeats=3 if quick else 5,
    )
    case = f"{len(text) / 1e6:.1f} MB doc, {len(chunks)} chunks, {len(quotes)} quotes"
    note = "same results, checked before timing"
    return [
        BenchRow(case, "gaia_eval (native)", times["native"]),
        BenchRow(
            case,
            "python (' '.join(s.split()) + str.find)",
            times["split"],
            ratio=times["split"] / times["native"],
            note=note,
        ),
        BenchRow(
            case,
            "python (re.sub(r'\\s+', ' ') + str.find)",
            times["regex"],
            ratio=times["regex"] / times["native"],
            note=note,
        ),
    ]


if __name__ == "__main__":  # pragma: no cover - `python -m gaia_eval.bench.evidence`
    for row in run(quick=False):
        print(row)
