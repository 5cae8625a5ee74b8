"""A vision model reading PDF page images: any OpenAI-compatible chat endpoint that takes
`image_url` content parts (`openai:<base_url>#<model>`).

PDF images are read only through it, so whether it runs changes a PDF's chunks: the spec
is part of the chunk-cache key and of the results' header, and gates refuse to compare a
run with it on against one with it off. Before a run uses it, `probe()` makes it read a
test image (480 x 120, "GAIA RETRIEVAL PROBE 4271"); a model that cannot read that stops
the run with its error instead of indexing every image as blank.
"""

from __future__ import annotations

import base64
import json
import struct
import urllib.error
import urllib.request
import zlib
from typing import TYPE_CHECKING

from gaia_eval.core.errors import InfrastructureError, InvalidInputError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

PROBE_TEXT = "GAIA RETRIEVAL PROBE 4271"
PROBE_TOKEN = "4271"
PROBE_SIZE = (480, 120)
READ_PROMPT = (
    "Transcribe all text in this image exactly, in reading order. Describe any chart or "
    "figure in one sentence. Reply with the transcription only."
)
TIMEOUT_S = 120.0
# The full suite's vision model when neither --vlm nor --no-vlm is given (it reads PDF
# images unless --no-vlm): GAIA_EVAL_VLM, else Lemonade's default address serving GAIA's
# vision model.
DEFAULT_ENV = "GAIA_EVAL_VLM"
DEFAULT_SPEC = "openai:http://127.0.0.1:8000/api/v1#Qwen2.5-VL-7B-Instruct-GGUF"


def default_spec() -> str:
    """The vision model the full suite reads PDF images with unless told otherwise."""
    import os

    return os.environ.get(DEFAULT_ENV, "").strip() or DEFAULT_SPEC


# A 5 x 7 pixel font for the probe's letters (rows top to bottom, 1 = ink).
_GLYPHS = {
    "G": ["01110", "10001", "10000", "10111", "10001", "10001", "01111"],
    "A": ["01110", "10001", "10001", "11111", "10001", "10001", "10001"],
    "I": ["01110", "00100", "00100", "00100", "00100", "00100", "01110"],
    "R": ["11110", "10001", "10001", "11110", "10100", "10010", "10001"],
    "E": ["11111", "10000", "10000", "11110", "10000", "10000", "11111"],
    "T": ["11111", "00100", "00100", "00100", "00100", "00100", "00100"],
    "V": ["10001", "10001", "10001", "10001", "10001", "01010", "00100"],
    "L": ["10000", "10000", "10000", "10000", "10000", "10000", "11111"],
    "P": ["11110", "10001", "10001", "11110", "10000", "10000", "10000"],
    "O": ["01110", "10001", "10001", "10001", "10001", "10001", "01110"],
    "B": ["11110", "10001", "10001", "11110", "10001", "10001", "11110"],
    "4": ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    "2": ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    "7": ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    "1": ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    " ": ["00000"] * 7,
}


def png_bytes(gray: npt.NDArray[np.uint8]) -> bytes:
    """An 8-bit grayscale PNG of a 2-D uint8 array (no imaging library needed)."""
    height, width = gray.shape
    raw = b"".join(b"\x00" + gray[y].tobytes() for y in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def probe_image() -> bytes:
    """The probe: black "GAIA RETRIEVAL PROBE 4271" on a white 480 x 120 PNG."""
    import numpy as np

    width, height = PROBE_SIZE
    img = np.full((height, width), 255, dtype=np.uint8)
    scale, advance = 3, 6 * 3
    x0 = (width - advance * len(PROBE_TEXT)) // 2
    y0 = (height - 7 * scale) // 2
    for i, ch in enumerate(PROBE_TEXT):
        for r, row in enumerate(_GLYPHS[ch]):
            for c, bit in enumerate(row):
                if bit == "1":
                    y, x = y0 + r * scale, x0 + i * advance + c * scale
                    img[y : y + scale, x : x + scale] = 0
    return png_bytes(img)


class VisionModel:
    """An OpenAI-compatible vision model (`openai:<base_url>#<model>`)."""

    def __init__(self, spec: str) -> None:
        from gaia_eval.llm.spec import parse_model_spec

        parsed = parse_model_spec(spec, "--vlm")
        if parsed.backend != "openai" or parsed.base_url is None:
            msg = (
                f"--vlm {spec!r}: the vision model must be OpenAI-compatible, "
                "'openai:<base_url>#<model>' (e.g. a local server with a vision model)"
            )
            raise InvalidInputError(msg)
        self.spec = parsed.text
        self.base_url = parsed.base_url
        self.model = parsed.model

    def read(self, png: bytes, *, prompt: str = READ_PROMPT) -> str:
        """The model's transcription of one image; InfrastructureError on any failure."""
        data = base64.b64encode(png).decode("ascii")
        body = {
            "model": self.model,
            "temperature": 0,
            "max_tokens": 1024,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": prompt},
                        {
                            "type": "image_url",
                            "image_url": {"url": f"data:image/png;base64,{data}"},
                        },
                    ],
                }
            ],
        }
        req = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT_S) as resp:
                reply = json.loads(resp.read())
        except urllib.error.HTTPError as err:
            detail = err.read()[:300].decode("utf-8", "replace")
            err.close()
            msg = f"--vlm {self.spec}: HTTP {err.code} {err.reason}: {detail}"
            raise InfrastructureError(msg) from None
        except (urllib.error.URLError, OSError, json.JSONDecodeError) as err:
            msg = f"--vlm {self.spec}: {type(err).__name__}: {getattr(err, 'reason', err)}"
            raise InfrastructureError(msg) from None
        try:
            text = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            msg = f"--vlm {self.spec}: the reply has no choices[0].message.content: {reply!r}"
            raise InfrastructureError(msg[:500]) from None
        return str(text or "")

    def probe(self) -> str:
        """Make the model read the probe image; raise unless the reply holds 4271."""
        try:
            reply = self.read(probe_image(), prompt="What text is in this image?")
        except InfrastructureError as err:
            msg = f"{err}; the vision model failed its probe: fix it or pass --no-vlm"
            raise InfrastructureError(msg) from None
        if PROBE_TOKEN not in reply:
            msg = (
                f"--vlm {self.spec}: the vision model could not read the probe image "
                f"({PROBE_TEXT!r}); it replied {reply[:200]!r}. PDF images would be read "
                "as nothing: use a vision model, or pass --no-vlm"
            )
            raise InfrastructureError(msg)
        return reply


def read_pages(pdf: bytes, pages: list[int], vlm: VisionModel, dpi: int = 150) -> dict[int, str]:
    """Page number -> the vision model's text of that page, rendered at `dpi`."""
    import numpy as np
    import pypdfium2 as pdfium

    out: dict[int, str] = {}
    doc = pdfium.PdfDocument(pdf)
    try:
        for number in pages:
            page = doc[number - 1]
            bitmap = page.render(scale=dpi / 72, grayscale=True)
            arr = np.asarray(bitmap.to_numpy(), dtype=np.uint8)
            if arr.ndim == 3:
                arr = arr[:, :, 0]
            out[number] = vlm.read(png_bytes(np.ascontiguousarray(arr))).strip()
            bitmap.close()
            page.close()
    finally:
        doc.close()
    return out


__all__ = ["PROBE_TEXT", "VisionModel", "png_bytes", "probe_image", "read_pages"]
