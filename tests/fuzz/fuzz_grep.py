"""atheris harness for the grep kernel over the public `gaia_eval._native` API
(`nox -s fuzz_grep`).

Invariants on every input: no crash; `GrepIndex(contents).query(words)` equals a
brute-force whole-word count per (word, file, line) (files with a NUL in their first
8000 bytes skipped as binary); `from_paths` over the same bytes on disk gives the same
hits, and marks a missing path UNREADABLE; a non-word query is a ValueError.
Run by hand: python tests/fuzz/fuzz_grep.py CORPUS_DIR -max_total_time=60 \
    -dict=tests/fuzz/grep.dict   (an empty CORPUS_DIR is filled with seeds first)
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from gaia_eval import _native

WORD = re.compile(rb"[A-Za-z0-9_]+")
TMP = Path(tempfile.mkdtemp(prefix="gaia-eval-fuzz-grep-"))


def oracle(contents: list[bytes], words: list[str]) -> list[tuple[int, int, int, int]]:
    out = []
    for wi, word in enumerate(words):
        w = word.encode()
        for fi, data in enumerate(contents):
            if b"\0" in data[:8000]:
                continue
            for ln, line in enumerate(data.split(b"\n"), start=1):
                n = sum(1 for tok in WORD.findall(line) if tok == w)
                if n:
                    out.append((wi, fi, ln, n))
    return out


# Built from these, even random bytes make files with words, lines, binary markers and
# UTF-8 (the kernel is not coverage-instrumented, and under ASan Python's coverage is off).
VOCAB = (
    b"foo", b"bar", b"foo_bar", b"x1", b"_", b"a", b" ", b"\n", b"\r\n", b".", b"(", b"\0",
    b"\xc3\xa9", b"\xff", b"foo.bar", b"\t", b"FOO", b"9", b"foo9",
)  # fmt: skip


def _content(fdp: atheris.FuzzedDataProvider) -> bytes:
    if fdp.ConsumeBool():
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 3000))
    n = fdp.ConsumeIntInRange(0, 1500)
    parts = [VOCAB[fdp.ConsumeIntInRange(0, len(VOCAB) - 1)] for _ in range(n)]
    if fdp.ConsumeIntInRange(0, 7) == 0:  # a NUL past the 8000-byte sniff window
        parts.append(b"x" * 8000 + b"\0 foo")
    return b"".join(parts)


def rows(hits: _native.GrepHits) -> list[tuple[int, int, int, int]]:
    cols = (hits.word.tolist(), hits.file.tolist(), hits.line.tolist(), hits.hits.tolist())
    return list(zip(*cols, strict=True))


@atheris.instrument_func  # the kernel is not instrumented: branch on its answers
def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    contents = [_content(fdp) for _ in range(fdp.ConsumeIntInRange(0, 6))]
    words: list[str] = []
    for _ in range(fdp.ConsumeIntInRange(0, 5)):
        if fdp.ConsumeBool() and contents:  # a word that occurs
            toks = WORD.findall(contents[fdp.ConsumeIntInRange(0, len(contents) - 1)])
            if toks:
                words.append(toks[fdp.ConsumeIntInRange(0, len(toks) - 1)].decode())
                continue
        words.append(fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 8)))
    index = _native.GrepIndex(contents)
    valid = all(w and WORD.fullmatch(w.encode("utf-8")) and w.isascii() for w in words)
    try:
        got = rows(index.query(words))
    except ValueError:
        if valid:
            raise
        return
    if not valid:
        raise AssertionError(f"query accepted a non-word among {words!r}")
    if got != oracle(contents, words):
        raise AssertionError("hits differ from the brute-force count")
    if index.binary_mask().tolist() != [b"\0" in c[:8000] for c in contents]:
        raise AssertionError("binary mask differs")
    # The same bytes read from disk in C++, plus one path that does not exist.
    paths = []
    for i, c in enumerate(contents):
        p = TMP / f"f{i}"
        p.write_bytes(c)
        paths.append(str(p))
    paths.append(str(TMP / "missing"))
    disk = _native.GrepIndex.from_paths(paths)
    if rows(disk.query(words)) != got or int(disk.kinds()[-1]) != _native.GrepIndex.UNREADABLE:
        raise AssertionError("from_paths differs from the in-memory index")


def write_seeds(folder: Path) -> None:
    import random

    rng = random.Random(0)
    toks = [b"foo", b"bar", b"foo_bar", b"x1", b" ", b"\n", b".", b"(", b"\xc3\xa9", b"\0"]
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(32):
        head = bytes(rng.randrange(256) for _ in range(4))
        body = b"".join(rng.choice(toks) for _ in range(rng.randint(1, 200)))
        (folder / f"seed{i:02d}").write_bytes(head + body)


def main() -> None:
    dirs = [Path(a) for a in sys.argv[1:] if not a.startswith("-")]
    for d in dirs:
        if not d.exists() or not any(d.iterdir()):
            write_seeds(d)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
