"""Text extraction: plain text and markdown, and PDF (extra `pdf`) with `[Page N]` markers.

Honesty rules, because a retrieval score over half a document is a wrong score:
- A PDF that pypdf cannot fully read (no `%%EOF`, a damaged cross-reference table, a
  page that fails, any pypdf read warning) is `degraded`: what was read is returned with
  the reasons, never passed off as the whole file. One that cannot be read at all fails.
- A PDF whose pages hold images but no text (a scan) is `empty` with an actionable error;
  without a vision model its text is unknown, so it is never indexed as an empty document.
- pypdf's warnings and log records are captured into the result, not left to leak.
"""

from __future__ import annotations

import io
import logging
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from gaia_eval.systems.rag.vlm import VisionModel

ExtractStatus = Literal["ok", "degraded", "empty", "failed"]

# Bumped whenever extraction output changes shape; part of the chunk-cache key.
EXTRACTOR_VERSION = "1"

PDF_SUFFIXES = {".pdf"}
_SNIFF = 8192


@dataclass
class Extraction:
    """What was read from one file."""

    text: str
    status: ExtractStatus
    pages: int = 0
    """Page count for paged documents (PDF), 0 otherwise."""
    error: str | None = None
    notes: list[str] = field(default_factory=list)


def extract(path: Path, data: bytes | None = None, vlm: VisionModel | None = None) -> Extraction:
    """Extract `path` (its bytes may be passed in when already read); with a vision model,
    PDF pages that are images without text are read through it."""
    if data is None:
        try:
            data = path.read_bytes()
        except OSError as err:
            return Extraction("", "failed", error=f"{path}: cannot read: {err.strerror or err}")
    if path.suffix.lower() in PDF_SUFFIXES or data.startswith(b"%PDF-"):
        return extract_pdf(path, data, vlm)
    return extract_text(path, data)


def extract_text(path: Path, data: bytes) -> Extraction:
    """UTF-8 (BOM tolerated), falling back to latin-1; binary files are refused."""
    if b"\x00" in data[:_SNIFF]:
        msg = f"{path}: binary file (NUL bytes); supported formats are text, markdown and PDF"
        return Extraction("", "failed", error=msg)
    notes: list[str] = []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
        notes.append("not valid UTF-8; decoded as latin-1")
    if not text.strip():
        return Extraction("", "empty", error=f"{path}: the file has no text", notes=notes)
    return Extraction(text, "ok", notes=notes)


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


_INLINE_IMAGE = re.compile(rb"(?:^|\s)BI\s.*?\sID\s", re.DOTALL)


def _has_inline_image(page: Any) -> bool:
    try:
        contents = page.get_contents()
        return contents is not None and bool(_INLINE_IMAGE.search(contents.get_data()))
    except Exception:
        return False


def _has_images(obj: Any, depth: int = 0) -> bool:
    """True when a page (or form XObject) draws an image XObject or an inline image."""
    if depth == 0 and _has_inline_image(obj):
        return True
    try:
        resources = obj.get("/Resources")
        resources = resources.get_object() if resources is not None else None
        xobjects = resources.get("/XObject") if resources is not None else None
        if xobjects is None:
            return False
        for ref in xobjects.get_object().values():
            xo = ref.get_object()
            subtype = xo.get("/Subtype")
            if subtype == "/Image":
                return True
            if subtype == "/Form" and depth < 3 and _has_images(xo, depth + 1):
                return True
    except Exception:
        # A damaged resource dictionary: no evidence of images; the read warnings
        # captured elsewhere already mark the file degraded.
        return False
    return False


def extract_pdf(path: Path, data: bytes, vlm: VisionModel | None = None) -> Extraction:
    """PDF via pypdf: `[Page N]` then the page's text, one block per page."""
    try:
        import pypdf
    except ImportError:
        from gaia_eval.core.extras import install_hint

        msg = f"{path}: PDF support needs pypdf: {install_hint('pdf')}"
        return Extraction("", "failed", error=msg)

    problems: list[str] = []
    if b"%%EOF" not in data[-2048:]:
        problems.append("no %%EOF marker at the end (the file looks truncated)")
    capture = _Capture()
    logger = logging.getLogger("pypdf")
    old_propagate = logger.propagate
    logger.addHandler(capture)
    logger.propagate = False
    blocks: list[str] = []
    image_only: list[int] = []
    failed_pages: list[int] = []
    n_pages = 0
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
                n_pages = len(reader.pages)
            except Exception as err:
                msg = (
                    f"{path}: cannot read the PDF ({type(err).__name__}: {err}); "
                    "the file is truncated or corrupt; fetch it again or repair it"
                )
                return Extraction("", "failed", error=msg)
            for number in range(1, n_pages + 1):
                try:
                    page = reader.pages[number - 1]
                    text = page.extract_text() or ""
                except Exception as err:
                    failed_pages.append(number)
                    problems.append(f"page {number}: {type(err).__name__}: {err}")
                    continue
                if not text.strip() and _has_images(page):
                    image_only.append(number)
                blocks.append(f"[Page {number}]\n{text.strip()}")
        problems.extend(f"pypdf: {w.message}" for w in caught)
    finally:
        logger.removeHandler(capture)
        logger.propagate = old_propagate
    problems.extend(f"pypdf: {m}" for m in capture.messages)
    read_by_vlm: list[int] = []
    if vlm is not None and image_only:
        from gaia_eval.systems.rag.vlm import read_pages

        # An outage of the vision model raises (InfrastructureError): never a blank page.
        seen = read_pages(data, image_only, vlm)
        for i, block in enumerate(blocks):
            number = int(block.split("]", 1)[0].removeprefix("[Page "))
            if seen.get(number):
                blocks[i] = f"[Page {number}]\n{seen[number]}"
                read_by_vlm.append(number)
        image_only = [n for n in image_only if n not in read_by_vlm]

    text = "\n\n".join(blocks)
    body = "".join(b.split("\n", 1)[1] if "\n" in b else "" for b in blocks)
    if n_pages == 0 or not body.strip():
        if image_only:
            msg = (
                f"{path}: image-only PDF ({len(image_only)} of {n_pages} pages are images "
                "without text); enable a vision model (--vlm ...) or OCR it first"
            )
        elif problems:
            msg = f"{path}: no text could be read; the file is truncated or corrupt: " + "; ".join(
                problems[:5]
            )
            return Extraction("", "failed", pages=n_pages, error=msg)
        else:
            msg = f"{path}: the PDF has no extractable text"
        return Extraction("", "empty", pages=n_pages, error=msg)

    notes: list[str] = []
    if read_by_vlm:
        listed = ", ".join(map(str, read_by_vlm[:20]))
        notes.append(f"pages {listed} are images, read by the vision model {vlm.spec}")  # type: ignore[union-attr]
    if image_only:
        listed = ", ".join(map(str, image_only[:20]))
        notes.append(
            f"pages {listed} are images without text and were not read; "
            "enable a vision model (--vlm ...) or OCR the file to include them"
        )
    if problems:
        read = n_pages - len(failed_pages)
        msg = (
            f"{path}: damaged PDF; read {read} of {n_pages} page(s) and some content may "
            "be missing: " + "; ".join(dict.fromkeys(problems[:8]))
        )
        return Extraction(text, "degraded", pages=n_pages, error=msg, notes=notes)
    return Extraction(text, "ok", pages=n_pages, notes=notes)
