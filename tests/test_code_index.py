"""The reference code index: discovery, reading, chunks, cache validation, incremental re-index."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from gaia_eval.embed import from_spec
from gaia_eval.systems.code_index import (
    CodeIndex,
    Limits,
    ReferenceCodeIndex,
    discover,
    read_source,
)
from gaia_eval.systems.code_index import cache as cache_mod
from gaia_eval.systems.code_index.chunker import chunk_file

SRC = '''"""Module doc."""
import os


@decorator
def top(a):
    return a + 1


class Session:
    """A session."""

    timeout = 3

    def request(self, method):
        def inner():
            return method
        return inner()

    async def close(self):
        return None


VALUE = top(1)
'''


def _tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data.encode() if isinstance(data, str) else data)
    return root


def test_python_chunks_have_qualnames_and_spans() -> None:
    chunks = chunk_file("pkg/s.py", SRC)
    got = {(c.symbol_name, c.symbol_type, c.start_line, c.end_line) for c in chunks}
    assert ("top", "function", 5, 7) in got  # decorators included
    assert ("Session.request", "method", 15, 18) in got  # the nested def stays inside
    assert ("Session.close", "method", 20, 21) in got
    names = [c.symbol_name for c in chunks]
    assert "Session.request.inner" not in names
    assert any(c.symbol_type == "class" and c.symbol_name == "Session" for c in chunks)
    assert any(c.symbol_type == "module" and "VALUE" in c.content for c in chunks)
    # Every line of the file is in exactly one chunk (no code lost, nothing twice).
    covered = sorted(ln for c in chunks for ln in range(c.start_line, c.end_line + 1))
    assert covered == sorted(set(covered))


def test_unparsable_and_other_languages_fall_back_to_windows() -> None:
    chunks = chunk_file("x.py", "def broken(:\n" * 130)
    assert [c.start_line for c in chunks] == [1, 61, 121]
    assert all(c.symbol_name is None for c in chunk_file("main.c", "int main() {}\n"))


def test_long_symbol_is_split_into_named_parts() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(200))
    names = [c.symbol_name for c in chunk_file("big.py", f"def big():\n{body}")]
    assert names[0] == "big (part 1/3)" and names[-1] == "big (part 3/3)"


@pytest.mark.parametrize("use_git", [True, False])
def test_discovery_respects_gitignore_and_skips_sensitive(tmp_path: Path, use_git: bool) -> None:
    root = _tree(
        tmp_path / "repo",
        {
            ".gitignore": "build/\n*.gen.py\n!keep.gen.py\n/top_only.py\n",
            "a.py": "x = 1\n",
            "sub/top_only.py": "x = 1\n",
            "top_only.py": "x = 1\n",
            "build/out.py": "x = 1\n",
            "z.gen.py": "x = 1\n",
            "keep.gen.py": "x = 1\n",
            ".env": "SECRET=1\n",
            "server.key": "k\n",
            "README.md": "# no\n",
            "sub/.gitignore": "local.py\n",
            "sub/local.py": "x = 1\n",
        },
    )
    if use_git:
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    found = discover(root)
    assert found.method == ("git" if use_git else "walk")
    assert found.files == ["a.py", "keep.gen.py", "sub/top_only.py"]
    assert found.skipped.get("sensitive") == 2
    assert not found.truncated


def test_limits_are_reported_when_hit(tmp_path: Path) -> None:
    root = _tree(tmp_path, {f"m{i}.py": "x = 1\n" for i in range(5)})
    found = discover(root, Limits(max_files=3))
    assert len(found.files) == 3 and found.limits_hit == ["max_files"]
    found = discover(root, Limits(max_walk_entries=2))
    assert found.limits_hit == ["max_walk_entries"]


def test_reader_refuses_binary_large_and_outside(tmp_path: Path) -> None:
    outside = _tree(tmp_path / "out", {"secret.py": "TOKEN = 1\n"})
    root = _tree(
        tmp_path / "repo",
        {
            "nul.py": b"x = 1\n\0",
            "late.py": b"#" * 9000 + b"\n\0",
            "big.py": b"x = 1\n" * 200_000,
            "latin.py": "s = 'caf\u00e9'\n".encode("latin-1"),
        },
    )
    os.symlink(outside / "secret.py", root / "link.py")
    os.symlink(root / "latin.py", root / "inside_link.py")
    assert read_source(root, "nul.py").reason == "binary"
    assert read_source(root, "late.py").reason == "binary"
    assert read_source(root, "big.py").reason == "too-large"
    latin = read_source(root, "latin.py")
    assert latin.encoding == "latin-1" and latin.text == "s = 'caf\u00e9'\n"
    assert read_source(root, "link.py").reason == "outside-root"
    assert read_source(root, "inside_link.py").text == latin.text
    assert read_source(root, "../out/secret.py").reason == "outside-root"


def test_walk_never_follows_a_directory_loop(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"a.py": "x = 1\n"})
    os.symlink("..", root / "loop", target_is_directory=True)
    os.symlink(tmp_path / "missing", root / "dangling", target_is_directory=True)
    assert discover(root).files == ["a.py"]


class CountingEmbedder:
    """The hash embedder, counting what it embeds (to prove incremental re-use)."""

    def __init__(self) -> None:
        self.inner = from_spec("hash")
        self.texts: list[str] = []

    @property
    def spec(self) -> str:
        return self.inner.spec

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: list[str]):  # type: ignore[no-untyped-def]
        self.texts.extend(texts)
        return self.inner.embed(texts)


def test_incremental_reindex_embeds_only_changed_files(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo", {"a.py": SRC, "b.py": "def b():\n    return 2\n"})
    emb = CountingEmbedder()
    index = ReferenceCodeIndex(root, tmp_path / "cache", emb)
    assert isinstance(index, CodeIndex)
    first = index.index()
    assert first.files_reparsed == 2 and first.cache_state == "fresh"
    emb.texts.clear()
    (root / "b.py").write_text("def b():\n    return 3\n")
    (root / "c.py").write_text("def c():\n    return 4\n")
    second = index.index()
    assert second.files_reparsed == 2 and second.cache_state == "reused"
    assert all("def b" in t or "def c" in t for t in emb.texts)
    (root / "a.py").unlink()
    third = ReferenceCodeIndex(root, tmp_path / "cache", emb).index()
    assert third.files_reparsed == 0
    fresh = ReferenceCodeIndex(root, tmp_path / "fresh", from_spec("hash"))
    fresh.index()
    inc_chunks, inc_vecs = ReferenceCodeIndex(root, tmp_path / "cache", emb).entries()
    new_chunks, new_vecs = fresh.entries()
    assert inc_chunks == new_chunks
    assert (inc_vecs == new_vecs).all()
    top = fresh.search("return 4", 1)[0]
    assert top.chunk.file_path == "c.py" and 0 < top.score <= 1


def test_interrupted_save_with_same_chunk_count_is_detected(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo", {"a.py": "def f():\n    return 1\n"})
    emb = from_spec("hash")
    ReferenceCodeIndex(root, tmp_path / "c", emb).index()
    directory = cache_mod.cache_path(tmp_path / "c", root)
    old = cache_mod.load(directory)
    (root / "a.py").write_text("def f():\n    # changed\n    return 1\n")
    ReferenceCodeIndex(root, tmp_path / "c", emb).index()
    new = cache_mod.load(directory)
    assert len(new.chunks) == len(old.chunks)
    cache_mod.save(directory, old)  # back to the old pair...
    # ...then the save of the new state dies between its two renames.
    cache_mod.save(directory, new, crash_between_renames=True)
    meta = json.loads((directory / "metadata.json").read_text())
    assert len(meta["chunks"]) == len(old.chunks)  # the count check alone cannot see it
    with pytest.raises(cache_mod.CacheDamagedError, match="not the index"):
        ReferenceCodeIndex(root, tmp_path / "c", emb).search("f", 3)
    report = ReferenceCodeIndex(root, tmp_path / "c", emb).index()
    assert report.cache_state == "rebuilt: index-mismatch"
    assert ReferenceCodeIndex(root, tmp_path / "c", emb).search("f", 3)


def test_search_without_an_index_raises(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo", {"a.py": "x = 1\n"})
    with pytest.raises(cache_mod.CacheMissingError):
        ReferenceCodeIndex(root, tmp_path / "c", from_spec("hash")).search("x", 3)


def test_git_mode_lists_links_but_never_reads_through_them(tmp_path: Path) -> None:
    outside = _tree(tmp_path / "out", {"secret.py": "TOKEN = 1\n"})
    root = _tree(tmp_path / "repo", {"a.py": "x = 1\n"})
    os.symlink(outside / "secret.py", root / "link.py")
    os.symlink(outside, root / "linkdir", target_is_directory=True)
    os.symlink(".", root / "loop", target_is_directory=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    found = discover(root)
    assert found.method == "git" and found.files == ["a.py", "link.py"]
    index = ReferenceCodeIndex(root, tmp_path / "c", from_spec("hash"))
    report = index.index()
    assert index.indexed_files() == ["a.py"] and report.skipped == {"outside-root": 1}
