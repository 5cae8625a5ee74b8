"""The content-addressed embedding cache: exact bytes, two processes, LRU bound, damage,
`--no-cache`, and the counts the RAG system and the code index report."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from gaia_eval.embed import cache as cache_mod
from gaia_eval.embed import cache_stats, from_spec
from gaia_eval.embed.cache import EmbeddingCache, VectorStore
from gaia_eval.embed.onnx import OnnxEmbedder
from gaia_eval.systems.code_index import ReferenceCodeIndex
from gaia_eval.systems.rag.system import RagSystem

DIM = 8
FIELDS: dict[str, object] = {"spec": "test:vectors", "weights_sha256": "w", "dim": DIM}


def _vector(text: str) -> npt.NDArray[np.float32]:
    """A deterministic stand-in for a model: the cache only sees (text, vector) pairs."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)


class _Counting:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, texts: list[str]) -> npt.NDArray[np.float32]:
        self.seen.extend(texts)
        return np.vstack([_vector(t) for t in texts])


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache-root"
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(root))
    monkeypatch.delenv("GAIA_EVAL_NO_EMBED_CACHE", raising=False)
    return root


def test_the_session_never_writes_the_users_cache() -> None:
    # conftest points GAIA_EVAL_CACHE at a temp folder for the whole session.
    assert Path.home() / ".cache" not in cache_mod.default_path().parents


def test_hits_are_the_stored_bytes_and_each_distinct_text_is_computed_once(
    tmp_path: Path,
) -> None:
    store = VectorStore(tmp_path / "v.sqlite3", 10**8)
    cache = EmbeddingCache.at(store, FIELDS, DIM)
    compute = _Counting()
    first = cache.embed(["a", "b", "a", "c"], compute)
    assert compute.seen == ["a", "b", "c"]
    assert np.array_equal(first[0], first[2])
    again = EmbeddingCache.at(VectorStore(tmp_path / "v.sqlite3", 10**8), FIELDS, DIM)
    second = again.embed(["c", "a", "d"], compute)
    assert compute.seen == ["a", "b", "c", "d"]
    assert second[0].tobytes() == first[3].tobytes()
    assert second[1].tobytes() == first[0].tobytes()
    assert (again.stats.hits, again.stats.misses, again.stats.stored) == (2, 1, 1)
    assert (cache.stats.hits, cache.stats.misses, cache.stats.stored) == (0, 4, 3)


def test_any_identity_field_changes_the_key(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "v.sqlite3", 10**8)
    compute = _Counting()
    EmbeddingCache.at(store, FIELDS, DIM).embed(["x"], compute)
    for field, value in [("weights_sha256", "w2"), ("max_tokens", 128), ("spec", "test:other")]:
        other = EmbeddingCache.at(store, {**FIELDS, field: value}, DIM)
        other.embed(["x"], compute)
        assert other.stats.hits == 0, field
    assert compute.seen == ["x"] * 4


def test_a_damaged_row_is_rejected_and_recomputed(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite3"
    cache = EmbeddingCache.at(VectorStore(path, 10**8), FIELDS, DIM)
    good = cache.embed(["pump"], _Counting())
    with sqlite3.connect(path) as db:
        (vec,) = db.execute("SELECT vector FROM vectors").fetchone()
        flipped = bytes([vec[0] ^ 1]) + vec[1:]
        db.execute("UPDATE vectors SET vector = ?", (flipped,))
    again = EmbeddingCache.at(VectorStore(path, 10**8), FIELDS, DIM)
    compute = _Counting()
    served = again.embed(["pump"], compute)
    assert compute.seen == ["pump"]
    assert again.stats.rejected == 1 and again.stats.hits == 0
    assert served.tobytes() == good.tobytes()
    third = EmbeddingCache.at(VectorStore(path, 10**8), FIELDS, DIM)
    assert third.embed(["pump"], _Counting()).tobytes() == good.tobytes()
    assert third.stats.hits == 1


def test_a_file_that_is_not_a_database_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    cache = EmbeddingCache.at(VectorStore(path, 10**8), FIELDS, DIM)
    cache.embed(["a"], _Counting())
    assert VectorStore(path, 10**8).count() == 1


def test_an_unopenable_cache_turns_itself_off_and_says_why(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache_dir.mkdir(parents=True)
    (cache_dir / "embeddings").write_text("a file where the folder should be")
    cache = EmbeddingCache.open(FIELDS, DIM)
    out = cache.embed(["a", "b"], _Counting())
    assert out.shape == (2, DIM)
    assert not cache.stats.enabled and cache.stats.misses == 2
    assert cache.stats.error and "embeddings" in cache.stats.error
    assert "embedding cache off" in capsys.readouterr().err


def test_lru_eviction_keeps_the_file_bounded_and_the_recently_used_rows(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite3"
    limit = 256 * 1024
    store = VectorStore(path, limit, touch_every_ns=0)
    cache = EmbeddingCache.at(store, {**FIELDS, "dim": 128}, 128)
    big = 128

    def compute(texts: list[str]) -> npt.NDArray[np.float32]:
        return np.vstack([np.resize(_vector(t), big).astype(np.float32) for t in texts])

    keep = [f"keep {i}" for i in range(50)]
    cache.embed(keep, compute)
    for batch in range(40):
        cache.embed([f"filler {batch} {i}" for i in range(50)], compute)
        cache.embed(keep, compute)  # used again: the LRU must keep them
    assert cache.stats.evicted > 0
    assert store.used_bytes() <= limit
    assert path.stat().st_size <= 2 * limit  # freed pages go back to the file system
    probe = EmbeddingCache.at(VectorStore(path, limit), {**FIELDS, "dim": 128}, 128)
    probe.embed(keep, compute)
    assert probe.stats.hits == len(keep)
    probe.embed([f"filler 0 {i}" for i in range(50)], compute)
    assert probe.stats.hits == len(keep)  # the oldest fillers went first


_WRITER = textwrap.dedent(
    """
    import hashlib, sys, time
    from pathlib import Path
    import numpy as np
    from gaia_eval.embed.cache import EmbeddingCache, VectorStore

    path, start, who = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    fields = {"spec": "test:vectors", "weights_sha256": "w", "dim": 8}

    def vec(text):
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(8).astype(np.float32)

    cache = EmbeddingCache.at(VectorStore(path, 10**9), fields, 8)
    while not start.exists():
        time.sleep(0.001)
    for batch in range(60):
        # Half the texts are shared with the other writer, half are its own.
        texts = [f"shared {batch} {i}" for i in range(20)]
        texts += [f"{who} {batch} {i}" for i in range(20)]
        out = cache.embed(texts, lambda ts: np.vstack([vec(t) for t in ts]))
        assert all(out[r].tobytes() == vec(t).tobytes() for r, t in enumerate(texts))
    print(cache.stats.hits, cache.stats.stored, cache.stats.error)
    """
)


def test_two_processes_filling_one_cache_at_once(tmp_path: Path) -> None:
    path, start = tmp_path / "v.sqlite3", tmp_path / "go"
    script = tmp_path / "writer.py"
    script.write_text(_WRITER)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(path), str(start), who],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in ("left", "right")
    ]
    start.touch()
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert out.split()[-1] == "None"  # the cache never turned itself off
    stored = sum(int(out.split()[1]) for out, _ in outs)
    store = VectorStore(path, 10**9)
    assert store.count() == stored == 60 * 20 * 3  # each row written exactly once
    cache = EmbeddingCache.at(store, {"spec": "test:vectors", "weights_sha256": "w", "dim": 8}, 8)
    texts = [f"{w} {b} {i}" for w in ("shared", "left", "right") for b in (0, 59) for i in (0, 19)]
    served = cache.embed(texts, _Counting())
    assert cache.stats.hits == len(texts)
    assert all(served[r].tobytes() == _vector(t).tobytes() for r, t in enumerate(texts))


# ---- the real embedder ------------------------------------------------------------------

TEXTS = [
    "The pump's relief valve opens at 6 bar.",
    "Quarterly revenue rose twelve percent.",
    " ".join(f"word{i}" for i in range(300)),  # truncated at 256 tokens
    "北京是中华人民共和国的首都",
    "",
]


def test_onnx_cached_vectors_are_byte_identical_to_fresh_ones(cache_dir: Path) -> None:
    first = OnnxEmbedder()
    filled = first.embed(TEXTS)
    assert cache_stats(first)["misses"] == 4 and cache_stats(first)["stored"] == 4
    second = OnnxEmbedder()
    served = second.embed(TEXTS[::-1])[::-1]
    assert cache_stats(second)["hits"] == 4 and cache_stats(second)["misses"] == 0
    with cache_mod.disabled():
        fresh_embedder = OnnxEmbedder(parallel_runs=False)
    assert cache_stats(fresh_embedder)["enabled"] is False
    # Another batch composition and threading, no cache: a vector must depend on its text
    # alone, not on its neighbours or on how many cores computed it.
    fresh = np.vstack([fresh_embedder.embed([t]) for t in TEXTS])
    assert served.tobytes() == filled.tobytes() == fresh.tobytes()
    assert not served[4].any()


def test_rag_system_counts_vectors_served_from_the_cache(cache_dir: Path, tmp_path: Path) -> None:
    doc = tmp_path / "pumps.md"
    doc.write_text(" ".join(f"The pump number {i} moves water uphill." for i in range(60)))
    embedder = from_spec("onnx:all-MiniLM-L6-v2-int8")
    cold = RagSystem(embedder, tmp_path / "chunks-1")
    # Cached and fresh runs are alike in everything they record before indexing.
    assert "embedding_cache" not in cold.info().extra
    n = cold.index(doc).chunks
    cold.search("pumps", 3)
    stats = cold.stats()
    assert (stats["vectors_from_cache"], stats["vectors_computed"]) == (0, n)
    assert stats["query_vectors_computed"] == 1
    # A fresh chunk cache (a new run): every chunk vector comes from the embedding cache.
    warm = RagSystem(OnnxEmbedder(), tmp_path / "chunks-2")
    assert warm.index(doc).from_cache is False
    stats = warm.stats()
    assert (stats["vectors_from_cache"], stats["vectors_computed"]) == (n, 0)
    key = str(doc.resolve())
    assert warm._docs[key].vectors.tobytes() == cold._docs[key].vectors.tobytes()
    assert "vectors_from_cache" not in RagSystem(from_spec("hash"), tmp_path / "h").stats()


def test_code_index_counts_vectors_served_from_the_cache(cache_dir: Path, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("def pump():\n    return 1\n\n\nclass Valve:\n    pass\n")
    (root / "pkg" / "b.py").write_text("def drain(x):\n    return x - 1\n")
    embedder = OnnxEmbedder()
    first = ReferenceCodeIndex(root, tmp_path / "ix-1", embedder).index()
    assert first.chunks_embedded > 0 and first.vectors_from_cache == 0
    index = ReferenceCodeIndex(root, tmp_path / "ix-2", OnnxEmbedder())
    second = index.index()
    assert second.vectors_from_cache == second.chunks_embedded == first.chunks_embedded
    assert index.stats() == {"vectors_from_cache": first.chunks_embedded, "vectors_computed": 0}


def test_no_cache_flag_turns_the_cache_off(cache_dir: Path, tmp_path: Path) -> None:
    from retrieval_rag_data import write_dataset

    from gaia_eval.cli.main import main

    data = write_dataset(tmp_path / "data")
    args = ["retrieval", "--component", "rag", "--dataset", str(data), "--no-hard-cases"]
    assert main([*args, "--no-cache", "--out", str(tmp_path / "off")]) == 0
    assert not cache_mod.default_path().exists()
    assert cache_mod.enabled()  # the flag does not outlive the command
    assert main([*args, "--out", str(tmp_path / "on")]) == 0
    assert VectorStore(cache_mod.default_path(), 10**9).count() > 0


def _rag_run(data: Path, out: Path) -> dict[str, object]:
    import json

    from gaia_eval.cli.main import main

    argv = ["retrieval", "--component", "rag", "--dataset", str(data), "--no-hard-cases"]
    assert main([*argv, "--out", str(out)]) == 0
    return dict(json.loads((out / "results.json").read_text()))


def test_a_second_rag_run_records_every_vector_from_the_cache_with_the_same_ranks(
    cache_dir: Path, tmp_path: Path
) -> None:
    from retrieval_rag_data import write_dataset

    data = write_dataset(tmp_path / "data")
    runs = [_rag_run(data, tmp_path / name) for name in ("cold", "warm")]
    stats = [
        next(v for k, v in run["setup"].items() if k.startswith("index/"))  # type: ignore[attr-defined]
        for run in runs
    ]
    chunks = stats[0]["chunks"]
    assert chunks > 0
    assert (stats[0]["vectors_from_cache"], stats[0]["vectors_computed"]) == (0, chunks)
    assert (stats[1]["vectors_from_cache"], stats[1]["vectors_computed"]) == (chunks, 0)
    ranks = [
        {
            i["id"]: (i["result"]["sdk_rank"], i["result"]["agent_rank"])
            for i in run["items"]  # type: ignore[attr-defined]
        }
        for run in runs
    ]
    assert ranks[0] == ranks[1] and len(ranks[0]) > 0
    report = (tmp_path / "warm" / "report.md").read_text()
    assert f"| chunk vectors | {chunks} from the embedding cache, 0 computed |" in report


_PATCH = "--- a/pkg/gone.py\n+++ b/pkg/gone.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"


def test_code_quality_records_vectors_from_the_cache(cache_dir: Path, tmp_path: Path) -> None:
    from gaia_eval.code_retrieval import quality
    from gaia_eval.code_retrieval.instances import Instance
    from gaia_eval.code_retrieval.models import QueryRecord
    from gaia_eval.code_retrieval.report import sections, summarise
    from gaia_eval.core.report import Para
    from gaia_eval.core.results import Envelope, Header, ItemRecord, RunInfo
    from gaia_eval.core.runmeta import machine

    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("def pump():\n    return 1\n")
    records = []
    for n in (1, 2):
        index = ReferenceCodeIndex(root, tmp_path / f"ix-{n}", OnnxEmbedder())

        # The patch touches a file outside the index: the query is skipped after its
        # re-index, which is all this test reads.
        inst = Instance("q", "o/r", "0" * 40, "pump", _PATCH)
        records.append(quality.score_query(inst, root, index, dict, lambda _p: None))
    first, second = (r.index for r in records)
    assert first is not None and second is not None
    assert (first.vectors_from_cache, first.vectors_computed) == (0, first.chunks)
    assert (second.vectors_from_cache, second.vectors_computed) == (first.chunks, 0)
    header = Header(
        suite="code-retrieval",
        tier="test",
        definition_digest="d",
        items_total=2,
        item_ids=["quality/q0", "quality/q1"],
        run=RunInfo(package_version="0", commit=None, dirty=None, started="now", machine=machine()),
    )
    items = [
        ItemRecord(id=f"quality/q{n}", status="ok", result=r.model_dump(mode="json"), ran_at="now")
        for n, r in enumerate(records)
    ]
    env = Envelope(header=header, items=items)
    q = summarise(env).quality
    assert q is not None and (q.vectors_from_cache, q.vectors_computed) == (
        first.chunks,
        first.chunks,
    )
    assert QueryRecord.model_validate(records[1].model_dump()).index == second
    env.summary = summarise(env).model_dump(mode="json")
    text = sections(env)[0].blocks[0]
    assert isinstance(text, Para)
    assert f"Chunk vectors: {first.chunks} from the embedding cache, {first.chunks} computed" in (
        text.text
    )


def test_every_cache_lives_under_one_root_named_after_the_distribution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gaia_eval.core.cachedir import cache_root
    from gaia_eval.systems.rag import default_cache_dir

    monkeypatch.delenv("GAIA_EVAL_CACHE")
    monkeypatch.delenv("GAIA_EVAL_RAG_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_root() == tmp_path / ".cache" / "gaia-eval"
    assert cache_mod.default_path() == cache_root() / "embeddings" / "vectors.sqlite3"
    assert default_cache_dir() == cache_root() / "rag-chunks"
    monkeypatch.setenv("GAIA_EVAL_CACHE", "~/elsewhere")
    assert cache_mod.default_path().parent == tmp_path / "elsewhere" / "embeddings"
    assert default_cache_dir() == tmp_path / "elsewhere" / "rag-chunks"


def test_rag_queries_are_embedded_cold_even_when_the_cache_holds_them(
    cache_dir: Path, tmp_path: Path
) -> None:
    doc = tmp_path / "pumps.md"
    doc.write_text(" ".join(f"The pump number {i} moves water uphill." for i in range(60)))
    embedder = OnnxEmbedder()
    embedder.embed(["pumps"])  # an earlier run left this query's vector in the cache
    system = RagSystem(embedder, tmp_path / "chunks")
    system.index(doc)
    hits_before = cache_stats(embedder)["hits"]
    system.search("pumps", 3)
    stats = system.stats()
    assert (stats["query_vectors_from_cache"], stats["query_vectors_computed"]) == (0, 1)
    assert cache_stats(embedder)["hits"] == hits_before  # the query never reached the cache
    cold = OnnxEmbedder().embed_uncached(["pumps"])
    assert cold.tobytes() == embedder.embed(["pumps"]).tobytes()  # the same vector, computed
