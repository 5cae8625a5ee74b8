"""The native grep index against a pure-Python oracle and against `git grep -w -F` itself."""

from __future__ import annotations

import itertools
import os
import random
import re
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaia_eval._native import GrepIndex

_WORD = re.compile(rb"[A-Za-z0-9_]+")


def oracle(contents: list[bytes], words: list[str]) -> list[tuple[int, int, int, int]]:
    """(word, file, line, count) by brute force: a token equal to the word is a whole-word hit."""
    out = []
    for wi, word in enumerate(words):
        w = word.encode()
        for fi, data in enumerate(contents):
            if b"\0" in data[:8000]:
                continue
            for ln, line in enumerate(data.split(b"\n"), start=1):
                n = sum(1 for tok in _WORD.findall(line) if tok == w)
                if n:
                    out.append((wi, fi, ln, n))
    return out


def native(contents: list[bytes], words: list[str]) -> list[tuple[int, int, int, int]]:
    h = GrepIndex(contents).query(words)
    return list(
        zip(h.word.tolist(), h.file.tolist(), h.line.tolist(), h.hits.tolist(), strict=True)
    )


def test_whole_words_lines_and_counts() -> None:
    contents = [b"foo bar\nfoo_bar foo foo\nfoo.foo(x)\n", b"x\0y foo", b"caf\xc3\xa9foo foo"]
    assert native(contents, ["foo", "bar", "nope"]) == [
        (0, 0, 1, 1),
        (0, 0, 2, 2),
        (0, 0, 3, 2),
        (0, 2, 1, 2),  # a UTF-8 byte is not a word character (git's ASCII rule)
        (1, 0, 1, 1),
    ]
    assert GrepIndex(contents).binary_mask().tolist() == [False, True, False]


def test_bad_input_raises_instead_of_crashing() -> None:
    with pytest.raises(TypeError):
        GrepIndex(["text"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        GrepIndex(b"x")  # type: ignore[arg-type]
    index = GrepIndex([b"a b"])
    for bad in (["two words"], [""], ["dash-ed"], ["caf\u00e9"]):
        with pytest.raises(ValueError, match="words"):
            index.query(bad)
    with pytest.raises(TypeError):
        index.query("abc")  # type: ignore[arg-type]


_alphabet = st.sampled_from([b"a", b"b", b"_", b"1", b" ", b"\n", b".", b"\xc3", b"\0", b"ab"])
_file = st.lists(_alphabet, max_size=60).map(b"".join)
_query_word = st.sampled_from(["a", "b", "ab", "a_b", "b1", "_", "1", "aa", "ba"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_file, max_size=6), st.lists(_query_word, max_size=5))
def test_matches_oracle(contents: list[bytes], words: list[str]) -> None:
    assert native(contents, words) == oracle(contents, words)


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)


def test_hit_sets_equal_git_grep(tmp_path: Path) -> None:
    files = {
        "pkg/a.py": "def load_config(path):\n    return load_config_file(path)  # load_config\n",
        "pkg/b.py": "x = load_config\ny = _load_config\nz = load_config2 + load_config\n",
        "pkg/c.py": "caf\u00e9load_config = 1\nload_config\u00e9 = 2\nSession session\n",
        "bin.py": "load_config\0binary\n",
        "notes.txt": "session load_config Session\n\nlast line without newline Session",
    }
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode())
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    paths = sorted(files)
    from_bytes = GrepIndex([(tmp_path / p).read_bytes() for p in paths])
    from_paths = GrepIndex.from_paths([tmp_path / p for p in paths])
    for word, index in itertools.product(
        ["load_config", "Session", "session", "path", "binary", "absent"],
        [from_bytes, from_paths],
    ):
        proc = _git(tmp_path, "grep", "-n", "-w", "-F", "-I", "-z", "-e", word)
        assert proc.returncode in (0, 1), proc.stderr
        want = set()
        for row in proc.stdout.decode().splitlines():
            path, line, _ = row.split("\0", 2)
            want.add((path, int(line)))
        h = index.query([word])
        got = {(paths[f], ln) for f, ln in zip(h.file.tolist(), h.line.tolist(), strict=True)}
        assert got == want, word


# ---- building from paths: read in C++, must equal building from the bytes ----


def _from_paths_oracle(
    contents: list[bytes | None], words: list[str]
) -> list[tuple[int, int, int, int]]:
    """An unreadable file (None) is an empty file: no hits, index kept."""
    return oracle([b"" if c is None else c for c in contents], words)


def _write_tree(root: Path, contents: list[bytes | None]) -> list[Path]:
    """One path per entry: a file with those bytes, or for None a missing path."""
    paths = []
    for i, data in enumerate(contents):
        p = root / f"f{i}.txt"
        if data is not None:
            p.write_bytes(data)
        paths.append(p)
    return paths


def _hits(index: GrepIndex, words: list[str]) -> list[tuple[int, int, int, int]]:
    h = index.query(words)
    return list(
        zip(h.word.tolist(), h.file.tolist(), h.line.tolist(), h.hits.tolist(), strict=True)
    )


_maybe_file = st.one_of(st.none(), _file)


@settings(max_examples=100, deadline=None)
@given(st.lists(_maybe_file, max_size=6), st.lists(_query_word, max_size=5))
def test_from_paths_equals_from_bytes(contents: list[bytes | None], words: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = _write_tree(Path(tmp), contents)
        index = GrepIndex.from_paths(paths)
    assert _hits(index, words) == _from_paths_oracle(contents, words)
    assert _hits(index, words) == _hits(
        GrepIndex([b"" if c is None else c for c in contents]), words
    )
    want_kinds = [
        GrepIndex.UNREADABLE if c is None else GrepIndex.BINARY if b"\0" in c[:8000] else 0
        for c in contents
    ]
    assert index.kinds().tolist() == want_kinds
    assert index.binary_mask().tolist() == [k == GrepIndex.BINARY for k in want_kinds]
    assert index.num_files == len(contents)


def test_from_paths_skips_what_it_cannot_read(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_bytes(b"alpha beta\nalpha\n")
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "bin.py").write_bytes(b"alpha\0")
    (tmp_path / "late_nul.py").write_bytes(b"x" * 8000 + b"\0\nalpha\n")  # git: text
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "fifo")  # opening it must not wait for a writer
    unreadable = tmp_path / "locked.py"
    unreadable.write_bytes(b"alpha\n")
    unreadable.chmod(0)
    paths: list[str | bytes | os.PathLike[str]] = [
        tmp_path / "ok.py",
        str(tmp_path / "empty.py"),
        tmp_path / "missing.py",
        tmp_path / "bin.py",
        tmp_path / "sub",
        tmp_path / "fifo",
        tmp_path / "late_nul.py",
        "/dev/null",
        unreadable,
        os.fsencode(tmp_path / "ok.py"),
    ]
    index = GrepIndex.from_paths(paths)
    root_reads = os.access(unreadable, os.R_OK)  # root ignores the mode bits
    u, b = GrepIndex.UNREADABLE, GrepIndex.BINARY
    assert index.kinds().tolist() == [0, 0, u, b, u, u, 0, u, 0 if root_reads else u, 0]
    got = _hits(index, ["alpha", "beta"])
    want = [(0, 0, 1, 1), (0, 0, 2, 1), (0, 6, 2, 1)]
    if root_reads:
        want.append((0, 8, 1, 1))
    assert got == [*want, (0, 9, 1, 1), (0, 9, 2, 1), (1, 0, 1, 1), (1, 9, 1, 1)]


def test_from_paths_bad_input_raises_instead_of_crashing(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="paths"):
        GrepIndex.from_paths("a.py")
    with pytest.raises(TypeError, match=r"paths\[1\]"):
        GrepIndex.from_paths([tmp_path, 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"paths\[0\]"):
        GrepIndex.from_paths(["a\0b"])
    with pytest.raises(ValueError, match=r"paths\[0\]"):
        GrepIndex.from_paths([""])
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate has no file name bytes
        GrepIndex.from_paths(["\ud800.py"])
    assert GrepIndex.from_paths([]).num_files == 0
    assert _hits(GrepIndex.from_paths([]), ["a"]) == []


def test_long_words_block_edges_and_sparse_lines() -> None:
    """Words longer than the 8-byte hash chunk, words across the 64-byte scan blocks, and
    hits 70,000 lines apart (past the 16-bit line delta the slices store)."""
    long = "a_very_long_identifier_name_that_spans_chunks"
    contents = [
        (b"x" * 61 + b" " + long.encode() + b" ab\n") * 3,
        b"ab" + b"\n" * 70_000 + b"ab ab\n" + b"\n" * 65_535 + b"ab",
        b"y" * 64 + b"ab" + b"z" * 63 + b" ab",
        long.encode(),
    ]
    words = [long, "ab", long[:8], long[:16], "x" * 61, "y" * 64 + "ab"]
    assert native(contents, words) == oracle(contents, words)


def test_many_words_match_the_oracle() -> None:
    """Enough occurrences for slices of several blocks and a second slab of blocks."""
    rng = random.Random(7)
    vocab = [f"w{i}_{rng.randrange(10**6)}" for i in range(3000)] + ["self", "x"]
    contents = []
    for _ in range(40):
        lines = []
        for _ in range(rng.randrange(200, 800)):
            k = rng.randrange(0, 12)
            lines.append(
                " ".join(rng.choice(vocab) if rng.random() < 0.7 else "self" for _ in range(k))
            )
        contents.append("\n".join(lines).encode())
    index = GrepIndex(contents)
    assert index.num_occurrences == sum(len(_WORD.findall(c)) for c in contents)
    words = [*rng.sample(vocab, 60), "self", "x", "absent_word"]
    # The oracle's rule, with each line tokenised once instead of once per word.
    per_line = [[Counter(_WORD.findall(line)) for line in data.split(b"\n")] for data in contents]
    want = [
        (wi, fi, ln, n)
        for wi, word in enumerate(words)
        for fi, lines in enumerate(per_line)
        for ln, counts in enumerate(lines, start=1)
        if (n := counts[word.encode()])
    ]
    assert _hits(index, words) == want
    assert _hits(index, words[:3]) == oracle(contents, words[:3])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=4), st.data())
def test_arbitrary_bytes_match_the_oracle(contents: list[bytes], data: st.DataObject) -> None:
    """Any bytes at all (block edges, long words, NULs past the sniff) index like the oracle;
    the query words are drawn from the files' own tokens plus a few absent ones."""
    tokens = sorted({t.decode() for c in contents for t in _WORD.findall(c)})
    pool = [*tokens, "absent", "a" * 70]
    words = data.draw(st.lists(st.sampled_from(pool), max_size=6))
    assert native(contents, words) == oracle(contents, words)
