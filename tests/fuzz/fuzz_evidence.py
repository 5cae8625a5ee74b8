"""atheris harness for the evidence kernel over the public `gaia_eval._native` API
(`nox -s fuzz_evidence`).

Invariants on every input: no crash; the document's normalized text is
`" ".join(text.split())` and its page markers are every `[Page N]` in it; `evidence_find`
agrees with `str.find` inside the bounds; every located chunk and every resolved quote is
exactly its normalized text at the reported span; page lookups stay inside the document.
Run by hand: python tests/fuzz/fuzz_evidence.py CORPUS_DIR -max_total_time=60 \
    -dict=tests/fuzz/evidence.dict   (an empty CORPUS_DIR is filled with seeds first)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from gaia_eval import _native

MARKER = re.compile(r"\[Page ([0-9]{1,9})\]")


# Tokens the kernel treats specially. Built from them, even random bytes make documents
# with pages, whitespace runs and wide code points: the kernel is not coverage-instrumented
# (and under ASan Python's coverage is off too), so the harness cannot count on mutations
# finding these.
VOCAB = (
    "[Page ", "]", "[Page 1]", "[Page 2]", "[Page 12]", "1", "2", "9", "[Page", "Page ",
    " ", "  ", "\n", "\t", "\r\n", "\u00a0", "\u2028", "\u3000", "fox", "jumps", "over",
    "the", "lazy", "dog", "é", "日本語", "😀", "\x00", "\ud800", "[", "[[Page 3]]",
)  # fmt: skip


def _text(fdp: atheris.FuzzedDataProvider, most: int) -> str:
    mode = fdp.ConsumeIntInRange(0, 3)
    if mode == 0:  # any code point, surrogates included (a Python str may hold them)
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, most))
    if mode == 1:
        return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, most))
    n = fdp.ConsumeIntInRange(0, max(1, most // 4))
    return "".join(VOCAB[fdp.ConsumeIntInRange(0, len(VOCAB) - 1)] for _ in range(n))


@atheris.instrument_func  # the kernel is not instrumented: branch on its answers
def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    text = _text(fdp, 4000)
    doc = _native.evidence_document(text)
    norm = doc.normalized()
    if norm != " ".join(text.split()):
        raise AssertionError("normalized text differs from str.split")
    markers = [(m.start(), int(m.group(1))) for m in MARKER.finditer(norm)]
    if doc.markers() != markers or doc.paged() != bool(markers) or len(doc) != len(norm):
        raise AssertionError("page markers differ from the regex")
    # find: str.find wholly inside [start, end), no negative indexing, empty needle -1.
    needle = norm[fdp.ConsumeIntInRange(0, len(norm)) :][: fdp.ConsumeIntInRange(0, 40)]
    if fdp.ConsumeBool():
        needle = _text(fdp, 20)
    start = fdp.ConsumeIntInRange(-5, len(norm) + 5)
    end = fdp.ConsumeIntInRange(-5, len(norm) + 5)
    lo, hi = max(start, 0), min(end, len(norm))
    want = -1 if not needle or hi < lo else norm.find(needle, lo, hi)
    if _native.evidence_find(norm, needle, start, end) != want:
        raise AssertionError("evidence_find differs from str.find")
    # locate: a located chunk is exactly its normalized text in the document.
    chunks = []
    for _ in range(fdp.ConsumeIntInRange(0, 8)):
        a = fdp.ConsumeIntInRange(0, len(norm))
        chunk = norm[a : a + fdp.ConsumeIntInRange(0, 200)]
        chunks.append(chunk if fdp.ConsumeIntInRange(0, 4) else _text(fdp, 30))
    pieces = [fdp.ConsumeBool() for _ in chunks] if fdp.ConsumeBool() else []
    starts, ends = _native.evidence_locate(doc, chunks, pieces)
    for chunk, s, e in zip(chunks, starts.tolist(), ends.tolist(), strict=True):
        if s >= 0 and norm[s:e] != " ".join(chunk.split()):
            raise AssertionError("a located chunk is not its text")
        if s >= 0:
            doc.pages_of(s, e)
    # resolve: status 0 means the quote's normalized text sits at the span.
    quote = chunks[0] if chunks else _text(fdp, 60)
    page = fdp.ConsumeIntInRange(0, 12) or None
    near = _text(fdp, 10) if fdp.ConsumeBool() else None
    status, s, e = _native.evidence_resolve(doc, quote, page, near)
    if status == 0 and norm[s:e] != " ".join(quote.split()):
        raise AssertionError("a resolved quote is not its text")
    if status not in (0, 1, 2, 3, 4):
        raise AssertionError(f"unknown status {status}")
    many = _native.evidence_resolve_many(doc, [quote, quote], [page, None], [near, None])
    if many[0] != (status, s, e):
        raise AssertionError("resolve_many differs from resolve")
    seg = doc.page_segment(fdp.ConsumeIntInRange(-2, 12))
    if seg is not None and not 0 <= seg[0] <= seg[1] <= len(norm):
        raise AssertionError("a page segment outside the document")
    doc.pages_of(fdp.ConsumeIntInRange(-5, len(norm) + 5), fdp.ConsumeIntInRange(-5, 5))


def write_seeds(folder: Path) -> None:
    """Paged and unpaged documents with chunks of themselves (the kernel is not
    coverage-instrumented, so mutations start from realistic text)."""
    import random

    rng = random.Random(0)
    words = ["alpha", "beta", "[Page", "2]", "[Page 3]", "gamma", "\n", "\t", "  ", "é", "日本"]
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(48):
        body = " ".join(rng.choice(words) for _ in range(rng.randint(5, 120)))
        if i % 2:
            body = "[Page 1] " + body
        head = bytes(rng.randrange(256) for _ in range(6))
        (folder / f"seed{i:02d}").write_bytes(head + body.encode("utf-8"))


def main() -> None:
    dirs = [Path(a) for a in sys.argv[1:] if not a.startswith("-")]
    for d in dirs:
        if not d.exists() or not any(d.iterdir()):
            write_seeds(d)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
