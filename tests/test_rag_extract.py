"""Extraction: text encodings, PDF page markers, truncated and image-only PDFs."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_eval.systems.rag.extract import extract
from gaia_eval.systems.rag.minipdf import ImagePage, pdf_bytes, write_pdf

PAGES = [
    "Alpha page talks about reservoir pressure of 1200 kPa near the wellhead.",
    "Beta page lists the casing depth table: surface 350 m, intermediate 1450 m.",
    "Gamma page closes with the abandonment procedure and cement plugs.",
]


def test_utf8_markdown_is_read_verbatim(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Título\n\nCafé — naïve text.\n", encoding="utf-8")
    ex = extract(path)
    assert ex.status == "ok"
    assert ex.text == "# Título\n\nCafé — naïve text.\n"
    assert ex.pages == 0


def test_latin1_falls_back_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_bytes("Façade of the café".encode("latin-1"))
    ex = extract(path)
    assert ex.status == "ok"
    assert ex.text == "Façade of the café"
    assert any("latin-1" in n for n in ex.notes)


def test_binary_and_empty_files_are_not_indexable(tmp_path: Path) -> None:
    binary = tmp_path / "blob.txt"
    binary.write_bytes(b"\x00\x01\x02abc")
    assert extract(binary).status == "failed"
    blank = tmp_path / "blank.md"
    blank.write_text("  \n\t\n")
    ex = extract(blank)
    assert ex.status == "empty"
    assert ex.error is not None


def test_pdf_pages_get_markers_in_order(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "manual.pdf", list(PAGES))
    ex = extract(path)
    assert ex.status == "ok", ex.error
    assert ex.pages == 3
    norm = " ".join(ex.text.split())
    positions = [norm.index(f"[Page {n}]") for n in (1, 2, 3)]
    assert positions == sorted(positions)
    assert norm.startswith("[Page 1] Alpha page")
    for n, page in enumerate(PAGES, start=1):
        start = norm.index(f"[Page {n}]")
        end = norm.index(f"[Page {n + 1}]") if n < 3 else len(norm)
        assert " ".join(page.split()) in norm[start:end]


@pytest.mark.parametrize("fraction", [0.2, 0.4, 0.7, 0.9, 0.99])
def test_truncated_pdf_is_never_silently_partial(tmp_path: Path, fraction: float) -> None:
    data = pdf_bytes([*PAGES, *PAGES])
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[: int(len(data) * fraction)])
    ex = extract(path)
    assert ex.status in ("failed", "degraded")
    assert ex.error is not None
    assert "truncated" in ex.error or "damaged" in ex.error


def test_pdf_missing_only_its_trailer_is_degraded_with_text(tmp_path: Path) -> None:
    data = pdf_bytes(list(PAGES))
    path = tmp_path / "notrailer.pdf"
    path.write_bytes(data[: data.rindex(b"xref")])
    ex = extract(path)
    # Every object is still there: whatever pypdf recovers must be flagged, not passed
    # off as the whole document.
    assert ex.status in ("failed", "degraded")
    if ex.status == "degraded":
        assert ex.error is not None and "%%EOF" in ex.error


def test_image_only_pdf_is_refused_with_an_actionable_error(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "scan.pdf", [ImagePage(), ImagePage(shade=40, inline=True)])
    ex = extract(path)
    assert ex.status == "empty"
    assert ex.text == ""
    assert ex.error is not None
    assert "image-only PDF" in ex.error
    assert "--vlm" in ex.error and "OCR" in ex.error


def test_inline_image_scan_is_refused_too(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "inline.pdf", [ImagePage(inline=True)])
    ex = extract(path)
    assert ex.status == "empty"
    assert ex.error is not None and "image-only PDF" in ex.error


def test_mixed_pdf_keeps_text_and_names_image_pages(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "mixed.pdf", [PAGES[0], ImagePage(), PAGES[2]])
    ex = extract(path)
    assert ex.status == "ok"
    assert "[Page 2]" in ex.text
    assert "Gamma page" in ex.text
    assert any("pages 2 " in n for n in ex.notes)


def test_blank_pdf_is_empty_not_indexed(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "blank.pdf", ["", ""])
    ex = extract(path)
    assert ex.status == "empty"
    assert ex.error is not None and "no extractable text" in ex.error


def test_pdf_with_an_unreadable_page_is_degraded_not_ok(tmp_path: Path) -> None:
    data = pdf_bytes([*PAGES, "Delta page is the last one."])
    at = data.rindex(b"/Contents ")
    number = data[at + 10 :].split(b" ", 1)[0]
    assert int(b"9" * len(number)) > 12  # no such object in a 4-page file
    # Point the last page at an object that does not exist (same length: xref stays valid).
    broken = data[: at + 10] + b"9" * len(number) + data[at + 10 + len(number) :]
    path = tmp_path / "broken.pdf"
    path.write_bytes(broken)
    ex = extract(path)
    assert ex.status == "degraded"
    assert ex.error is not None and "damaged PDF" in ex.error and "not defined" in ex.error
    assert "Gamma page" in ex.text
    assert "Delta page" not in ex.text
