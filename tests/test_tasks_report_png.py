"""`tasks report` writes the harness x model table as markdown, HTML and a PNG taken by a
real headless Chromium (Debian `chromium`; GAIA_EVAL_REQUIRE_CHROMIUM=1 fails without it)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from gaia_eval.tasks.screenshot import PNG_MAGIC, png_size


def _runs(tmp_path: Path) -> list[Path]:
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps({"21-qa": [{"answer": "x"}]}))
    out = []
    for model in ("model-a", "model-b"):
        folder = tmp_path / model
        argv = [
            "tasks", "run", "--tasks", "21-qa", "--no-judge", "--harness", "replay",
            "--replay", str(replay), "--model", model, "--out", str(folder),
            "--work-root", str(tmp_path / "w"),
        ]  # fmt: skip
        assert main(argv) == 0
        out.append(folder)
    return out


def test_report_writes_markdown_html_and_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not any(shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")):
        if os.environ.get("GAIA_EVAL_REQUIRE_CHROMIUM") == "1":
            pytest.fail("GAIA_EVAL_REQUIRE_CHROMIUM=1 but no chromium on PATH")
        pytest.skip("no chromium on PATH (Debian: apt install chromium)")
    runs = _runs(tmp_path)
    rep = tmp_path / "rep"
    assert main(["tasks", "report", *map(str, runs), "--out", str(rep)]) == 0
    md = (rep / "report.md").read_text()
    assert "| core | replay | model-a |" in md and "| core | replay | model-b |" in md
    assert "model-b" in (rep / "report.html").read_text()
    data = (rep / "report.png").read_bytes()
    assert data.startswith(PNG_MAGIC)
    width, height = png_size(data)
    assert width == 1400 and height == 160 + 44 * 2  # the window the table was sized to
    assert len(data) > 5000  # a rendered table, not an empty page
    assert "report.png" in capsys.readouterr().out


def test_no_browser_skips_the_png_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_EVAL_CHROMIUM", str(tmp_path / "no-browser"))
    runs = _runs(tmp_path)
    assert main(["tasks", "report", str(runs[0]), "--out", str(tmp_path / "rep")]) == 0
    assert (tmp_path / "rep" / "report.md").is_file()
    assert not (tmp_path / "rep" / "report.png").exists()
    assert "no headless Chromium found" in capsys.readouterr().out
