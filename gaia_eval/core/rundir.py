"""Where a run's folder goes when `--out` is not given: one place for every suite."""

from __future__ import annotations

from pathlib import Path

RESULTS_ROOT = Path("eval") / "results"
"""The default results folder, relative to where the run starts (git-ignored)."""


def default_run_dir(name: str) -> Path:
    """`eval/results/<name>-<timestamp>`: a new folder per run."""
    from gaia_eval.core.runmeta import timestamp_slug

    return RESULTS_ROOT / f"{name}-{timestamp_slug()}"
