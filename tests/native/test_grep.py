"""The native grep index against a pure-Python oracle and against `git grep -w -F` itself."""

from __future__ import annotations

import re
import subprocess
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
    index = GrepIndex([(tmp_path / p).read_bytes() for p in paths])
    for word in ["load_config", "Session", "session", "path", "binary", "absent"]:
        proc = _git(tmp_path, "grep", "-n", "-w", "-F", "-I", "-z", "-e", word)
        assert proc.returncode in (0, 1), proc.stderr
        want = set()
        for row in proc.stdout.decode().splitlines():
            path, line, _ = row.split("\0", 2)
            want.add((path, int(line)))
        h = index.query([word])
        got = {(paths[f], ln) for f, ln in zip(h.file.tolist(), h.line.tolist(), strict=True)}
        assert got == want, word
