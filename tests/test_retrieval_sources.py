"""The corpus manifest and its cache, against a file server on 127.0.0.1: verified fetch,
sha mismatch (served and cached), 404, truncated download and its resume via Range,
unverified entries refused, offline naming what is missing without opening a socket."""

from __future__ import annotations

import hashlib
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from retrieval_fileserver import manifest_for, serve

from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.retrieval.sources import (
    MANIFEST,
    Corpus,
    Wanted,
    cache_dir,
    load_manifest,
)

BODY = bytes(range(256)) * 2000  # 512,000 bytes: several read blocks
SMALL = b"a small stand-in file\n"
LAYOUT = {"xquad": {"xquad.en.json": "x/en.json"}, "amd": {"sheet.pdf": "amd/sheet.pdf"}}
EN, SHEET = Wanted("xquad", "xquad.en.json"), Wanted("amd", "sheet.pdf")


def _corpus(tmp_path: Path, server: Any, layout: dict[str, dict[str, str]] = LAYOUT) -> Corpus:
    path = manifest_for(server, layout, tmp_path / "sources.json")
    return Corpus(load_manifest(path), tmp_path / "cache")


def test_the_shipped_manifest_pins_every_source() -> None:
    m = load_manifest()
    assert set(m.sources) == {"financebench", "amd", "arxiv", "xquad", "wikipedia"}
    fb = m.sources["financebench"].files
    assert "data/financebench_open_source.jsonl" in fb
    assert sum(1 for name in fb if name.startswith("pdfs/")) >= 84
    assert {f"xquad.{lang}.json" for lang in ("en", "de", "es", "ru", "zh", "ar", "hi")} <= set(
        m.sources["xquad"].files
    )
    for source in m.sources.values():
        assert source.license
        for f in source.files.values():
            assert f.verified or f.unverified  # never a silent gap
    # The sha256 of the XQuAD files was computed from the pinned commit's blobs.
    assert m.sources["xquad"].files["xquad.en.json"].bytes == 609383


def test_default_cache_follows_gaia_eval_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c" / "retrieval"
    monkeypatch.delenv("GAIA_EVAL_CACHE")
    assert cache_dir() == Path.home() / ".cache" / "gaia-eval" / "retrieval"


def test_fetch_downloads_verifies_and_reuses(tmp_path: Path) -> None:
    with serve({"x/en.json": BODY, "amd/sheet.pdf": SMALL}) as srv:
        corpus = _corpus(tmp_path, srv)
        paths = corpus.fetch([EN, SHEET])
        assert paths[EN].read_bytes() == BODY and paths[SHEET].read_bytes() == SMALL
        assert not list((tmp_path / "cache").rglob("*.part"))
        n = len(srv.log)
        # A second fetch (a fresh process: nothing remembered) checks and downloads nothing.
        Corpus(corpus.manifest, corpus.root).fetch([EN, SHEET])
        assert len(srv.log) == n


def test_a_cached_file_that_changed_is_an_error_naming_it_never_refetched(tmp_path: Path) -> None:
    with serve({"x/en.json": BODY, "amd/sheet.pdf": SMALL}) as srv:
        corpus = _corpus(tmp_path, srv)
        paths = corpus.fetch([EN, SHEET])
        flipped = bytearray(BODY)
        flipped[1000] ^= 1  # same size, other bytes: only the sha256 tells
        paths[EN].write_bytes(bytes(flipped))
        n = len(srv.log)
        for c in (Corpus(corpus.manifest, corpus.root),) * 2:
            with pytest.raises(InvalidInputError, match=r"xquad/xquad\.en\.json.*sha256"):
                c.fetch([EN])
            with pytest.raises(InvalidInputError, match=r"xquad/xquad\.en\.json"):
                c.require([EN])
        paths[SHEET].write_bytes(SMALL + b"more")
        with pytest.raises(InvalidInputError, match=r"amd/sheet\.pdf.*bytes"):
            Corpus(corpus.manifest, corpus.root).require([SHEET])
        assert len(srv.log) == n  # never downloaded again on its own
        assert paths[EN].read_bytes() == bytes(flipped)


def test_a_served_file_with_another_sha_is_refused(tmp_path: Path) -> None:
    with serve({"x/en.json": BODY, "amd/sheet.pdf": SMALL}) as srv:
        corpus = _corpus(tmp_path, srv)
        srv.files["x/en.json"] = BODY[::-1]  # upstream changed under the pinned URL
        with pytest.raises(InvalidInputError, match=r"xquad/xquad\.en\.json.*sha256") as err:
            corpus.fetch([EN])
        assert "fix the manifest" in str(err.value)
        assert not corpus.target(EN).exists()  # never put in place


def test_404_names_the_file_and_url(tmp_path: Path) -> None:
    with serve({"amd/sheet.pdf": SMALL}) as srv:
        corpus = _corpus(tmp_path, srv)
        with pytest.raises(InfrastructureError, match=r"xquad/xquad\.en\.json.*HTTP 404") as err:
            corpus.fetch([EN])
        assert srv.url("x/en.json") in str(err.value)
        assert not corpus.target(EN).exists()


def test_a_truncated_download_is_kept_and_resumed_with_range(tmp_path: Path) -> None:
    with serve({"x/en.json": BODY, "amd/sheet.pdf": SMALL}) as srv:
        corpus = _corpus(tmp_path, srv)
        srv.cut["x/en.json"] = 200_000
        with pytest.raises(InfrastructureError, match="resume"):
            corpus.fetch([EN])
        part = corpus.target(EN).with_name("xquad.en.json.part")
        assert part.stat().st_size == 200_000 and not corpus.target(EN).exists()
        # Offline, the partial file is not a file: it is named as missing.
        with pytest.raises(InvalidInputError, match=r"xquad/xquad\.en\.json"):
            corpus.fetch([EN], offline=True)
        del srv.cut["x/en.json"]
        path = corpus.fetch([EN])[EN]
        assert path.read_bytes() == BODY and not part.exists()
        assert srv.log[-1] == ("x/en.json", "bytes=200000-")


def test_a_server_that_ignores_range_restarts_cleanly(tmp_path: Path) -> None:
    with serve({"x/en.json": BODY, "amd/sheet.pdf": SMALL}) as srv:
        corpus = _corpus(tmp_path, srv)
        part = corpus.target(EN).with_name("xquad.en.json.part")
        part.parent.mkdir(parents=True)
        part.write_bytes(b"X" * (len(BODY) + 5))  # longer than the file: not a prefix
        assert corpus.fetch([EN])[EN].read_bytes() == BODY
        assert srv.log[-1] == ("x/en.json", None)


def test_unverified_entries_are_refused_before_any_download(tmp_path: Path) -> None:
    with serve({"x/en.json": BODY, "amd/sheet.pdf": SMALL}) as srv:
        path = manifest_for(srv, LAYOUT, tmp_path / "sources.json")
        data = json.loads(path.read_text())
        data["sources"]["amd"]["files"]["sheet.pdf"].update(
            sha256=None, bytes=None, unverified="not computed here"
        )
        path.write_text(json.dumps(data))
        corpus = Corpus(load_manifest(path), tmp_path / "cache")
        with pytest.raises(InvalidInputError, match=r"amd/sheet\.pdf \(not computed here\)"):
            corpus.fetch([EN, SHEET])
        assert srv.log == []
        data["sources"]["amd"]["files"]["sheet.pdf"]["unverified"] = None
        path.write_text(json.dumps(data))
        with pytest.raises(InvalidInputError, match="unverified"):
            load_manifest(path)


def test_manifest_problems_name_the_field(tmp_path: Path) -> None:
    raw = json.loads(MANIFEST.read_text())
    key = next(iter(raw["sources"]["xquad"]["files"]))
    raw["sources"]["xquad"]["files"][key]["url"] = "https://raw.githubusercontent.com/o/r/main/x"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(raw))
    with pytest.raises(InvalidInputError, match=r"sources\.xquad\.files.*40-hex commit"):
        load_manifest(bad)
    with pytest.raises(InvalidInputError, match="not found"):
        load_manifest(tmp_path / "absent.json")


def test_offline_names_every_missing_file_and_opens_no_socket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with serve({"x/en.json": BODY, "amd/sheet.pdf": SMALL}) as srv:
        corpus = _corpus(tmp_path, srv)
        corpus.fetch([SHEET])
    calls: list[Any] = []

    def guard(self: socket.socket, address: Any) -> None:
        calls.append(address)
        raise AssertionError(f"offline run connected to {address}")

    monkeypatch.setattr(socket.socket, "connect", guard)
    monkeypatch.setattr(socket.socket, "connect_ex", guard)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: guard(None, a))  # type: ignore[arg-type]
    fresh = Corpus(corpus.manifest, corpus.root)
    with pytest.raises(InvalidInputError) as err:
        fresh.fetch([EN, SHEET], offline=True)
    text = str(err.value)
    assert "xquad/xquad.en.json" in text and "amd/sheet.pdf" not in text
    assert "--fetch-only" in text
    assert fresh.fetch([SHEET], offline=True)[SHEET].read_bytes() == SMALL
    assert calls == []


def test_sha256_in_the_manifest_is_what_check_compares(tmp_path: Path) -> None:
    with serve({"x/en.json": BODY, "amd/sheet.pdf": SMALL}) as srv:
        corpus = _corpus(tmp_path, srv)
        assert corpus.manifest.file("xquad", "xquad.en.json").sha256 == (
            hashlib.sha256(BODY).hexdigest()
        )


def _unverified_sheet(tmp_path: Path, srv: Any) -> Path:
    path = manifest_for(srv, LAYOUT, tmp_path / "sources.json")
    data = json.loads(path.read_text())
    data["sources"]["amd"]["files"]["sheet.pdf"].update(
        sha256=None, bytes=None, unverified="host not reachable when it was pinned"
    )
    path.write_text(json.dumps(data))
    return path


def test_pin_unverified_downloads_once_pins_and_checks_later_runs(tmp_path: Path) -> None:
    from gaia_eval.retrieval.sources import PINNED_NOTE

    with serve({"x/en.json": BODY, "amd/sheet.pdf": SMALL}) as srv:
        path = _unverified_sheet(tmp_path, srv)
        cache = tmp_path / "cache"
        # Without the flag it is refused, and the message names the flag that fixes it.
        with pytest.raises(InvalidInputError, match="--pin-unverified"):
            Corpus(load_manifest(path), cache).fetch([EN, SHEET])
        assert srv.log == []
        first = Corpus(load_manifest(path), cache, pin_unverified=True)
        assert first.fetch([EN, SHEET])[SHEET].read_bytes() == SMALL
        assert first.pinned == {SHEET}
        pins = json.loads((cache / "pins.json").read_text())["pins"]
        assert pins["amd/sheet.pdf"] == {
            "url": srv.url("amd/sheet.pdf"),
            "sha256": hashlib.sha256(SMALL).hexdigest(),
            "bytes": len(SMALL),
            "note": PINNED_NOTE,
        }
        assert 'sha256": null' in path.read_text()  # the manifest is never written
        # A later run, flag or not, uses the pin: no download, and it says so.
        n = len(srv.log)
        later = Corpus(load_manifest(path), cache)
        assert later.fetch([EN, SHEET], offline=True)[SHEET].read_bytes() == SMALL
        assert later.pinned == {SHEET} and len(srv.log) == n
        # ... and checks against it: a changed file is refused, naming the pin.
        (cache / "amd" / "sheet.pdf").write_bytes(SMALL.upper())
        with pytest.raises(InvalidInputError, match=r"its pin in .*pins\.json"):
            Corpus(load_manifest(path), cache).check(SHEET)


def test_a_pin_is_for_its_url_and_offline_never_pins(tmp_path: Path) -> None:
    with serve({"x/en.json": BODY, "amd/sheet.pdf": SMALL, "amd/moved.pdf": SMALL}) as srv:
        path = _unverified_sheet(tmp_path, srv)
        cache = tmp_path / "cache"
        with pytest.raises(InvalidInputError, match="no pin"):
            Corpus(load_manifest(path), cache, pin_unverified=True).fetch([SHEET], offline=True)
        assert srv.log == []
        Corpus(load_manifest(path), cache, pin_unverified=True).fetch([SHEET])
        data = json.loads(path.read_text())
        data["sources"]["amd"]["files"]["sheet.pdf"]["url"] = srv.url("amd/moved.pdf")
        path.write_text(json.dumps(data))
        with pytest.raises(InvalidInputError, match="no pin"):
            Corpus(load_manifest(path), cache).check(SHEET)
