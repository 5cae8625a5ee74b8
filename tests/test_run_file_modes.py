"""Every file a run writes has one mode (docs/runs.md "The run folder"): results.json and
the reports used to be mkstemp's 0600 while items.jsonl was 0644."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from gaia_eval.core.results_io import FILE_MODE


def _modes(folder: Path) -> dict[str, int]:
    return {
        str(p.relative_to(folder)): stat.S_IMODE(p.stat().st_mode)
        for p in folder.rglob("*")
        if p.is_file()
    }


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_every_file_of_a_run_and_its_merge_has_the_one_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, umask: int
) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))
    old = os.umask(umask)
    try:
        runs = [tmp_path / "shard1", tmp_path / "shard2"]
        for i, out in enumerate(runs, 1):
            assert main(["memory", "--suite", "pr", "--shard", f"{i}/2", "--out", str(out)]) == 0
        merged = tmp_path / "merged"
        assert main(["merge", *map(str, runs), "--out", str(merged)]) == 0
    finally:
        os.umask(old)
    for folder in [*runs, merged]:
        modes = _modes(folder)
        assert {"items.jsonl", "results.json", "report.md", "report.html"} <= set(modes) or (
            folder == merged and {"results.json", "report.md", "report.html"} <= set(modes)
        ), modes
        # The mode is fixed at import from the umask then; a file may never be private
        # while its neighbours are not, nor the other way round.
        assert set(modes.values()) == {FILE_MODE}, modes
    assert 0o644 & ~_import_umask() == FILE_MODE


def _import_umask() -> int:
    """The umask the test process started with (FILE_MODE was computed from it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
