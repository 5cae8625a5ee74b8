"""Write small, valid PDFs without a PDF library: text pages and image-only pages.

Used by tests and by hard cases that need a PDF of known content (an image-only "scan",
a multi-page text file with known page text). Text uses the built-in Helvetica font, so
any PDF reader extracts it; images are uncompressed 8-bit gray.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ImagePage:
    """A page showing one gray image and no text, like a scanned page."""

    width: int = 64
    height: int = 32
    shade: int = 128
    inline: bool = False
    """Draw the image inline in the content stream (BI ... ID ... EI) instead of as an
    image XObject; scanners and rasterizers write both."""


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _wrap(text: str, width: int = 90) -> list[str]:
    lines: list[str] = []
    for para in text.split("\n"):
        current = ""
        for word in para.split():
            if current and len(current) + 1 + len(word) > width:
                lines.append(current)
                current = word
            else:
                current = f"{current} {word}" if current else word
        lines.append(current)
    return lines


def pdf_bytes(pages: list[str | ImagePage]) -> bytes:
    """A PDF with one page per item: a string is typeset as text, an ImagePage as an image."""
    objects: list[bytes] = []  # object i+1

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below, once the page tree number is known
    tree = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    kids: list[int] = []
    for page in pages:
        resources = f"/Font << /F1 {font} 0 R >>"
        if isinstance(page, ImagePage) and page.inline:
            pixels = bytes([page.shade % 256]) * (page.width * page.height)
            stream = (
                f"q 468 0 0 648 72 72 cm BI /W {page.width} /H {page.height} /CS /G "
                "/BPC 8 ID\n".encode()
                + pixels
                + b"\nEI Q"
            )
        elif isinstance(page, ImagePage):
            pixels = bytes([page.shade % 256]) * (page.width * page.height)
            image = add(
                f"<< /Type /XObject /Subtype /Image /Width {page.width} /Height {page.height} "
                f"/ColorSpace /DeviceGray /BitsPerComponent 8 /Length {len(pixels)} >>\n"
                "stream\n".encode()
                + pixels
                + b"\nendstream"
            )
            resources += f" /XObject << /Im1 {image} 0 R >>"
            stream = b"q 468 0 0 648 72 72 cm /Im1 Do Q"
        else:
            ops = ["BT", "/F1 10 Tf", "13 TL", "56 760 Td"]
            for line in _wrap(page):
                ops.append(f"({_escape(line)}) Tj T*")
            ops.append("ET")
            stream = "\n".join(ops).encode("cp1252", "replace")
        content = add(f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream")
        kids.append(
            add(
                f"<< /Type /Page /Parent {tree} 0 R /MediaBox [0 0 612 792] "
                f"/Resources << {resources} >> /Contents {content} 0 R >>".encode()
            )
        )
    objects[catalog - 1] = f"<< /Type /Catalog /Pages {tree} 0 R >>".encode()
    kid_refs = " ".join(f"{k} 0 R" for k in kids)
    objects[tree - 1] = f"<< /Type /Pages /Kids [{kid_refs}] /Count {len(kids)} >>".encode()

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root {catalog} 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode()
    return bytes(out)


def write_pdf(path: Path, pages: list[str | ImagePage]) -> Path:
    """Write `pdf_bytes(pages)` to `path` and return it."""
    path.write_bytes(pdf_bytes(pages))
    return path
