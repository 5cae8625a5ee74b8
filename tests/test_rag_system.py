"""The reference RAG system end to end on real files, a real FAISS index and a real cache
(hash embedder for speed): cache damage, replaced documents, eviction, both pipelines."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.plugins import load_factory
from gaia_eval.embed.hashing import HashEmbedder
from gaia_eval.systems.rag import Retriever
from gaia_eval.systems.rag.minipdf import ImagePage, pdf_bytes, write_pdf
from gaia_eval.systems.rag.system import RagSystem

FILLER = (
    "The committee reviewed general matters of procedure, scheduling and routine "
    "correspondence without reaching any particular conclusion on the day. "
)
DOCS = {
    "pumps.md": "# Pumps\n\n" + FILLER * 6 + "The centrifugal pump impeller speed is 3450 rpm "
    "at the rated flow of the cooling loop. " + FILLER * 6,
    "valves.txt": FILLER * 5 + "Gate valves on the steam header are rated for 900 psi "
    "and must be fully opened before startup. " + FILLER * 7,
    "wiring.md": FILLER * 8 + "The control cabinet uses 24 volt DC relays with "
    "green indicator lamps for every motor circuit. " + FILLER * 3,
    "tanks.txt": FILLER * 4 + "Storage tank T-101 holds brine at 40 degrees and is "
    "inspected by ultrasonic thickness gauging yearly. " + FILLER * 4,
}
QUERY = "What is the impeller speed of the centrifugal pump?"
ANSWER = "3450 rpm"
CANARY = "TAMPERED-CANARY-9K2"


@pytest.fixture
def corpus(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "docs"
    folder.mkdir()
    out = {}
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
        out[name] = folder / name
    return out


def make(cache: Path, **settings: object) -> RagSystem:
    return RagSystem(HashEmbedder(), cache, chunk_size=40, chunk_overlap=8, **settings)  # type: ignore[arg-type]


def answer_rank(system: RagSystem, needle: str = ANSWER, k: int = 20) -> int | None:
    for rank, hit in enumerate(system.search(QUERY, k), start=1):
        if needle in hit.text:
            return rank
    return None


def test_implements_the_protocol_and_records_settings(tmp_path: Path) -> None:
    system = make(tmp_path / "cache")
    assert isinstance(system, Retriever)
    info = system.info()
    assert info.embedder == "hash"
    assert (info.chunk_size, info.chunk_overlap, info.max_chunks) == (40, 8, 5)
    assert info.vlm is None


def test_index_search_and_views(corpus: dict[str, Path], tmp_path: Path) -> None:
    system = make(tmp_path / "cache")
    results = [system.index(p) for p in corpus.values()]
    assert [r.status for r in results] == ["indexed"] * 4
    assert all(r.chunks > 0 and not r.from_cache for r in results)
    hits = system.search(QUERY, 20)
    assert hits[0].path == str(corpus["pumps.md"])
    assert ANSWER in hits[0].text
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    for hit in hits:
        chunks = system.chunks(Path(hit.path))
        assert chunks[hit.chunk_index] == hit.text
        norm = " ".join(system.extracted_text(Path(hit.path)).split())
        assert hit.text in norm
    again = system.index(corpus["pumps.md"])
    assert again.already_indexed
    assert again.status == "indexed"


def test_search_is_deterministic_across_sessions(corpus: dict[str, Path], tmp_path: Path) -> None:
    runs = []
    for n in range(2):
        system = make(tmp_path / f"cache{n}")
        for p in corpus.values():
            system.index(p)
        runs.append(
            (
                [(h.path, h.chunk_index, h.score) for h in system.search(QUERY, 20)],
                [(h.path, h.chunk_index, h.score) for h in system.agent_search(QUERY)],
            )
        )
    assert runs[0] == runs[1]


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _tamper(path: Path) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["chunks"][0] = f"{CANARY} {ANSWER} impeller speed centrifugal pump"
    path.write_text(json.dumps(raw), encoding="utf-8")


def _unsign(path: Path) -> None:
    path.with_suffix(".sig").unlink()


def _garbage(path: Path) -> None:
    path.write_bytes(os.urandom(128))


@pytest.mark.parametrize(
    "damage",
    [_truncate, _tamper, _unsign, _garbage],
    ids=["truncated", "tampered", "unsigned", "garbage"],
)
def test_damaged_cache_entries_are_rebuilt_never_served(
    corpus: dict[str, Path], tmp_path: Path, damage: Callable[[Path], None]
) -> None:
    cache = tmp_path / "cache"
    clean = make(cache)
    for p in corpus.values():
        clean.index(p)
    clean_rank = answer_rank(clean)
    assert clean_rank == 1
    entry = clean.cache_entry(corpus["pumps.md"])
    assert entry is not None and entry.is_file() and entry.with_suffix(".sig").is_file()
    clean.close()

    damage(entry)
    session = make(cache)
    results = {name: session.index(p) for name, p in corpus.items()}
    target = results["pumps.md"]
    assert not target.from_cache
    assert target.status == "indexed"
    assert any("rejected" in n for n in target.notes)
    assert all(r.from_cache and r.status == "cached" for n, r in results.items() if n != "pumps.md")
    assert all(CANARY not in c for c in session.chunks(corpus["pumps.md"]))
    assert all(CANARY not in h.text for h in session.search(QUERY, 20))
    assert all(CANARY not in h.text for h in session.agent_search(QUERY))
    assert answer_rank(session) == clean_rank

    # The rebuilt entry is valid again: a third session serves it from the cache.
    third = make(cache)
    assert third.index(corpus["pumps.md"]).from_cache


def test_a_lost_cache_key_invalidates_every_entry(corpus: dict[str, Path], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = make(cache)
    first.index(corpus["pumps.md"])
    (cache / "cache.key").write_bytes(b"short")
    second = make(cache)
    result = second.index(corpus["pumps.md"])
    assert not result.from_cache
    assert any("signature" in n for n in result.notes)


def test_replaced_document_serves_new_text(corpus: dict[str, Path], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    system = make(cache)
    for p in corpus.values():
        system.index(p)
    assert answer_rank(system) == 1
    path = corpus["pumps.md"]
    path.write_text(DOCS["pumps.md"].replace(ANSWER, "ZQX-4471-REPLACED"), encoding="utf-8")
    result = system.index(path)
    assert result.status == "indexed"
    assert not result.already_indexed
    assert any("content changed" in n for n in result.notes)
    assert "ZQX-4471-REPLACED" in system.extracted_text(path)
    assert answer_rank(system) is None
    assert answer_rank(system, "ZQX-4471-REPLACED") == 1
    assert all(ANSWER not in c for c in system.chunks(path))
    # A new session on the same cache sees the new content, not the old entry.
    fresh = make(cache)
    fresh.index(path)
    assert "ZQX-4471-REPLACED" in fresh.extracted_text(path)
    assert fresh.reindex(path).from_cache


def test_identical_copies_do_not_fill_the_results(corpus: dict[str, Path], tmp_path: Path) -> None:
    system = make(tmp_path / "cache")
    for p in corpus.values():
        system.index(p)
    copies = []
    for name, p in corpus.items():
        copy = p.with_name(f"copy-of-{name}")
        shutil.copyfile(p, copy)
        copies.append(str(copy))
        assert system.index(copy).status == "cached"  # same content, same entry
    for hits in (system.search(QUERY, 5), system.agent_search(QUERY)):
        texts = [h.text for h in hits]
        assert len(texts) == len(set(texts))
        assert not [h for h in hits if h.path in copies]


def test_lru_eviction_is_reported(corpus: dict[str, Path], tmp_path: Path) -> None:
    system = make(tmp_path / "cache", max_indexed_files=3)
    paths = list(corpus.values())
    for p in paths[:3]:
        assert system.index(p).evicted == ()
    system.index(paths[0])  # touched: now the second file is least recently used
    result = system.index(paths[3])
    assert result.evicted == (str(paths[1]),)
    assert system.indexed_paths() == [str(paths[0]), str(paths[2]), str(paths[3])]
    assert all(h.path != str(paths[1]) for h in system.search("valves steam header", 20))
    with pytest.raises(InvalidInputError, match="not indexed"):
        system.chunks(paths[1])


def test_full_index_without_lru_refuses(corpus: dict[str, Path], tmp_path: Path) -> None:
    system = make(tmp_path / "cache", max_indexed_files=2, lru=False)
    paths = list(corpus.values())
    system.index(paths[0])
    system.index(paths[1])
    result = system.index(paths[2])
    assert result.status == "failed"
    assert result.error is not None and "capacity" in result.error
    assert len(system.indexed_paths()) == 2


def test_agent_returns_at_most_five_ranked_chunks(corpus: dict[str, Path], tmp_path: Path) -> None:
    system = make(tmp_path / "cache")
    for p in corpus.values():
        system.index(p)
    for query in (QUERY, "relays", "tank T-101 inspection", '"gate valves" 900 psi', "zzz"):
        hits = system.agent_search(query)
        assert len(hits) <= 5
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        for h in hits:
            assert system.chunks(Path(h.path))[h.chunk_index] == h.text
    top = system.agent_search("tank T-101 inspection")
    assert top and "T-101" in top[0].text


def test_pdfs_through_the_system(tmp_path: Path) -> None:
    system = make(tmp_path / "cache")
    good = write_pdf(tmp_path / "manual.pdf", [FILLER * 3, "Impeller speed 3450 rpm. " + FILLER])
    result = system.index(good)
    assert (result.status, result.pages) == ("indexed", 2)
    assert "[Page 2]" in system.extracted_text(good)
    assert all("[Page" not in c for c in system.chunks(good))

    scan = write_pdf(tmp_path / "scan.pdf", [ImagePage(), ImagePage()])
    refused = system.index(scan)
    assert refused.status == "empty"
    assert refused.error is not None and "image-only" in refused.error
    assert str(scan) not in system.indexed_paths()

    cut = tmp_path / "cut.pdf"
    data = pdf_bytes([FILLER * 3, FILLER * 3])
    cut.write_bytes(data[: int(len(data) * 0.4)])
    broken = system.index(cut)
    assert broken.status in ("failed", "degraded")
    assert broken.error

    # A path that turns into a scan stops serving its old text.
    shutil.copyfile(scan, good)
    assert system.index(good).status == "empty"
    assert all(h.path != str(good) for h in system.search(QUERY, 20))


def test_missing_file_fails_cleanly(tmp_path: Path) -> None:
    result = make(tmp_path / "cache").index(tmp_path / "nope.md")
    assert result.status == "failed"
    assert result.error is not None and "nope.md" in result.error


def test_default_system_factory(
    corpus: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_EVAL_EMBEDDER", "hash")
    monkeypatch.setenv("GAIA_EVAL_RAG_CACHE", str(tmp_path / "cache"))
    system = load_factory("gaia_eval.systems.rag:default_system")
    assert isinstance(system, Retriever)
    assert system.info().embedder == "hash"
    assert system.index(corpus["pumps.md"]).status == "indexed"
    assert (tmp_path / "cache" / "cache.key").is_file()
    created = RagSystem.create("hash", tmp_path / "c2", chunk_size=50, chunk_overlap=5)
    assert (created.chunk_size, created.chunk_overlap) == (50, 5)
    with pytest.raises(InvalidInputError, match="overlap"):
        RagSystem.create("hash", tmp_path / "c3", chunk_size=5, chunk_overlap=5)


def test_search_hits_count_as_use_for_lru(corpus: dict[str, Path], tmp_path: Path) -> None:
    system = make(tmp_path / "cache", max_indexed_files=3)
    paths = list(corpus.values())
    for p in paths[:3]:
        system.index(p)
    top = system.search(QUERY, 1)  # returns pumps.md, the oldest: now recently used
    assert top[0].path == str(corpus["pumps.md"])
    result = system.index(paths[3])
    assert result.evicted == (str(paths[1]),)
    assert str(corpus["pumps.md"]) in system.indexed_paths()


def test_degraded_pdf_is_indexed_flagged_and_cached_as_degraded(tmp_path: Path) -> None:
    data = pdf_bytes([FILLER, "Impeller speed 3450 rpm. " + FILLER, FILLER, "Lost page."])
    at = data.rindex(b"/Contents ")
    number = data[at + 10 :].split(b" ", 1)[0]
    path = tmp_path / "damaged.pdf"
    path.write_bytes(data[: at + 10] + b"9" * len(number) + data[at + 10 + len(number) :])
    first = make(tmp_path / "cache").index(path)
    assert first.status == "degraded"
    assert first.error is not None and "damaged PDF" in first.error
    again = make(tmp_path / "cache")
    second = again.index(path)
    assert (second.status, second.from_cache) == ("degraded", True)
    assert second.error == first.error
    assert "Lost page" not in again.extracted_text(path)
    assert answer_rank(again) == 1
