"""A PNG of an HTML page through a headless Chromium (the harness x model table's
report.png). Optional by design: where no browser is found the PNG is skipped with a
note, and the markdown and HTML carry the same table."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from gaia_eval.core.results_io import atomic_write_bytes

BROWSER_ENV = "GAIA_EVAL_CHROMIUM"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
TIMEOUT_S = 120.0


def find_browser() -> str | None:
    """$GAIA_EVAL_CHROMIUM if set (and present), else the first Chromium on PATH."""
    given = os.environ.get(BROWSER_ENV, "").strip()
    if given:
        return shutil.which(given)
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def screenshot(page: Path, png: Path, *, width: int = 1400, height: int = 600) -> str | None:
    """Render `page` into `png`; None on success, else why no PNG was written."""
    browser = find_browser()
    if browser is None:
        return f"no headless Chromium found (PATH or ${BROWSER_ENV}); report.png not written"
    with tempfile.TemporaryDirectory(prefix="gaia-eval-chromium-") as tmp:
        shot = Path(tmp) / "shot.png"
        argv = [
            browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--disable-extensions", f"--user-data-dir={tmp}/profile",
            f"--window-size={width},{height}", f"--screenshot={shot}", page.resolve().as_uri(),
        ]  # fmt: skip
        try:
            proc = subprocess.run(
                argv, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            return f"{browser} could not take the screenshot ({type(err).__name__})"
        data = shot.read_bytes() if shot.is_file() else b""
        if not data.startswith(PNG_MAGIC):
            tail = (proc.stderr or "").strip().splitlines()[-1:] or ["no output"]
            return f"{browser} wrote no PNG (exit {proc.returncode}: {tail[0][:200]})"
    atomic_write_bytes(png, data)
    return None


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    if not data.startswith(PNG_MAGIC) or data[12:16] != b"IHDR":
        msg = "not a PNG"
        raise ValueError(msg)
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
