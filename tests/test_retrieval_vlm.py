"""PDF page images through a vision model, against a loopback OpenAI-compatible vision
server (a real socket): the probe image, a scan read and found, a failing or blind model
stopping the run with its error, and the gate refusing VLM-on against VLM-off."""

from __future__ import annotations

import base64
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from retrieval_rag_data import QUESTIONS, write_dataset
from tasks_fakes import FakeLLM, serve

from gaia_eval.cli.main import main
from gaia_eval.core.errors import InfrastructureError
from gaia_eval.core.results import load_envelope
from gaia_eval.retrieval.models import RagSummary
from gaia_eval.systems.rag.minipdf import ImagePage, write_pdf
from gaia_eval.systems.rag.vlm import PROBE_SIZE, PROBE_TEXT, VisionModel, probe_image

RAG = ["retrieval", "--component", "rag", "--embedder", "hash", "--no-hard-cases"]
SCAN_TEXT = "The scanned permit allows a discharge of nineteen cubic metres per hour at the weir."
SCAN_Q = {
    "id": "toy-scan",
    "doc": "scan",
    "question": "What discharge does the scanned permit allow at the weir?",
    "answer": "nineteen cubic metres per hour",
    "answer_type": "exact",
    "evidence": [{"page": 1, "quote": "allows a discharge of nineteen cubic metres per hour"}],
    "tags": ["scan"],
}


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


class _Vision(FakeLLM):
    """A vision model: `reads` (the probe by its size, any other image as the scanned
    page), `blind` (describes a white rectangle) or `down` (HTTP 500). Records the size of
    every image it was sent."""

    def __init__(self) -> None:
        super().__init__(answer=self._reply)
        self.mode = "reads"
        self.images: list[tuple[int, int]] = []
        self.spec = ""

    def _reply(self, body: dict[str, Any]) -> dict[str, Any]:
        parts = body["messages"][0]["content"]
        url = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
        size = _png_size(base64.b64decode(url.removeprefix("data:image/png;base64,")))
        self.images.append(size)
        if self.mode == "down":
            return {"status": 500, "body": {"error": {"message": "vision backend crashed"}}}
        if self.mode == "blind":
            return {"content": "A white rectangle."}
        return {"content": PROBE_TEXT if size == PROBE_SIZE else SCAN_TEXT}


@pytest.fixture
def vision() -> Iterator[_Vision]:
    fake = _Vision()
    with serve(fake) as url:
        fake.spec = f"openai:{url}/v1#vision"
        yield fake


def _dataset(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    (folder / "docs").mkdir(parents=True)
    write_pdf(folder / "docs" / "scan.pdf", [ImagePage(width=200, height=100)])
    return write_dataset(
        folder, questions=[*QUESTIONS, SCAN_Q], extra_docs={"scan": "docs/scan.pdf"}
    )


def test_the_probe_image_is_a_480x120_png_a_reader_reads(vision: _Vision) -> None:
    assert _png_size(probe_image()) == PROBE_SIZE
    assert "4271" in VisionModel(vision.spec).probe()
    vision.mode = "blind"
    with pytest.raises(InfrastructureError, match=r"could not read the probe.*--no-vlm"):
        VisionModel(vision.spec).probe()


def test_a_scan_is_read_by_the_vlm_and_found(
    tmp_path: Path, vision: _Vision, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ds = _dataset(tmp_path)
    out = tmp_path / "on"
    assert main([*RAG, "--dataset", str(ds), "--vlm", vision.spec, "--out", str(out)]) == 0
    assert vision.images[0] == PROBE_SIZE and len(vision.images) >= 2
    env = load_envelope(out / "results.json", suite="retrieval-rag")
    assert env.header.settings["vlm"] is True and env.header.model == vision.spec
    toy = RagSummary.model_validate(env.summary).datasets[0]
    assert toy.index is not None and toy.index.required_failed == 0
    scan = next(r for r in env.items if r.id == "toy/toy-scan")
    assert scan.result is not None and scan.result["sdk_rank"] is not None
    # Off: the same scan is refused (a required document failed), and the gate refuses
    # to compare the two runs.
    off = tmp_path / "off"
    assert main([*RAG, "--dataset", str(ds), "--no-vlm", "--out", str(off)]) == 0
    env_off = load_envelope(off / "results.json", suite="retrieval-rag")
    off_index = RagSummary.model_validate(env_off.summary).datasets[0].index
    assert off_index is not None and off_index.required_failed == 1
    assert env_off.header.settings["vlm"] is False
    assert main([*RAG[:3], "--compare", str(out / "results.json"), str(off / "results.json")]) == 3
    # And a VLM-on run gated against a VLM-off baseline is refused before it indexes.
    n = len(vision.images)
    assert (
        main(
            [
                *RAG,
                "--dataset",
                str(ds),
                "--vlm",
                vision.spec,
                "--gate",
                str(off / "results.json"),
                "--out",
                str(tmp_path / "again"),
            ]
        )
        == 3
    )
    assert len(vision.images) == n + 1  # the probe only


@pytest.mark.parametrize("mode", ["down", "blind"])
def test_a_failing_vlm_stops_the_run_with_its_error(
    tmp_path: Path,
    vision: _Vision,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    mode: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    vision.mode = mode
    out = tmp_path / "run"
    rc = main([*RAG, "--dataset", str(_dataset(tmp_path)), "--vlm", vision.spec, "--out", str(out)])
    assert rc == 3
    err = capsys.readouterr().err
    assert "--no-vlm" in err
    assert ("HTTP 500" in err) if mode == "down" else ("A white rectangle" in err)
    assert vision.images == [PROBE_SIZE]  # nothing was indexed
    assert not (out / "results.json").exists()


def test_vlm_flags_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*RAG, "--vlm", "openai:http://127.0.0.1:9/v1#v"]) == 2
    assert "pr suite never reads images" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse: the two are exclusive
        main([*RAG, "--vlm", "openai:http://127.0.0.1:9/v1#v", "--no-vlm"])
    assert main([*RAG, "--dataset", "x.json", "--vlm", "anthropic:claude"]) == 2
    assert "OpenAI-compatible" in capsys.readouterr().err


def test_scanned_pdf_with_the_vlm_on_is_read_and_measured(tmp_path: Path, vision: _Vision) -> None:
    from retrieval_rag_data import text_pdf

    from gaia_eval.retrieval.dataset import load_dataset
    from gaia_eval.retrieval.hard_cases import Context, scanned_pdf
    from gaia_eval.retrieval.systems import reference_maker

    folder = tmp_path / "data"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "permit.pdf").write_bytes(
        text_pdf([["Permit terms for the weir."], ["The weir may discharge water in spring."]])
    )
    q = {
        "id": "toy-permit",
        "doc": "permit",
        "question": "When may the weir discharge water?",
        "answer": "in spring",
        "answer_type": "exact",
        "evidence": [{"page": 2}],
    }
    ds = load_dataset(
        write_dataset(folder, questions=[q], extra_docs={"permit": "docs/permit.pdf"})
    )
    ctx = Context(
        dataset=ds,
        paths={d.id: d.path for d in ds.documents},
        texts={},
        maker=reference_maker("hash", vision.spec),
        work=tmp_path / "work",
    )
    case = scanned_pdf(ctx)
    assert case.status == "measured", case
    assert case.details["questions"] == 1 and case.details["chunks"] > 0
    assert "read by the VLM" in case.finding
    assert len(vision.images) == 2  # one image per scanned page, no probe here
