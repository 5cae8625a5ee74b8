"""Rasterize PDF pages and write them back as an image-only PDF (the `scanned_pdf` case).

Rendering uses pdfium (`pypdfium2`, in the `pdf` extra); the PDF writer is a few lines of
the PDF format itself (one 8-bit grey image per page, Flate-compressed), so no imaging
library is needed and the output has no text layer at all, like a scan.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np


def render_pages(pdf: Path, *, dpi: int = 150, max_pages: int = 3) -> list[np.ndarray]:
    """The first `max_pages` pages of `pdf` as 8-bit grey arrays (rows x columns)."""
    import pypdfium2 as pdfium  # type: ignore[import-not-found,unused-ignore]

    doc = pdfium.PdfDocument(str(pdf))
    try:
        pages = []
        for i in range(min(len(doc), max_pages)):
            page = doc[i]
            try:
                bitmap = page.render(scale=dpi / 72, grayscale=True)
                arr = np.asarray(bitmap.to_numpy())
                if arr.ndim == 3:
                    # Colour or padded layouts: the mean of the channels is a fine grey.
                    arr = arr[..., :3].mean(axis=2) if arr.shape[2] >= 3 else arr[..., 0]
                pages.append(np.ascontiguousarray(arr, dtype=np.uint8))
            finally:
                page.close()
        return pages
    finally:
        doc.close()


def image_only_pdf(pages: list[np.ndarray], *, dpi: int = 150) -> bytes:
    """A valid PDF with one full-page grey image per page and no text."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled once the page tree's number is known
    tree = add(b"")
    kids = []
    for img in pages:
        rows, cols = img.shape
        data = zlib.compress(img.tobytes(), 6)
        image = add(
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
            % (cols, rows, len(data))
            + data
            + b"\nendstream"
        )
        width, height = cols * 72 / dpi, rows * 72 / dpi
        draw = b"q %.2f 0 0 %.2f 0 0 cm /Im0 Do Q" % (width, height)
        content = add(b"<< /Length %d >>\nstream\n" % len(draw) + draw + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.2f %.2f] "
                b"/Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>"
                % (tree, width, height, image, content)
            )
        )
    return serialize_pdf(objects, catalog, tree, kids)


def serialize_pdf(objects: list[bytes], catalog: int, tree: int, kids: list[int]) -> bytes:
    """Write numbered PDF objects with a catalog, a page tree over `kids` and an xref table.

    `objects[catalog - 1]` and `objects[tree - 1]` are placeholders filled here, once every
    page's object number is known.
    """
    objects = list(objects)
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    objects[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids),
        len(kids),
    )
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        catalog,
        xref,
    )
    return bytes(out)
