"""The result file `gaia-eval bench --json FILE` writes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from gaia_eval.core.models import ResultModel as _Model
from gaia_eval.core.runmeta import RunMeta


class BenchRowModel(_Model):
    """One measured implementation on one workload."""

    area: str
    """The bench module that measured it (e.g. 'metrics')."""
    case: str
    """The workload, e.g. '100000 q x 100 docs'."""
    impl: str
    """Who ran it, e.g. 'gaia_eval (native)', 'pytrec_eval'."""
    median_s: float | None
    """Median wall seconds over the repeats; null when the implementation was skipped."""
    ratio: float | None
    """This row's median_s / gaia_eval's on the same case and note (30.0 = gaia_eval
    is 30x faster); null for gaia_eval's own rows and skipped ones."""
    note: str
    """What the figure includes, or why it was skipped."""


class BenchResult(_Model):
    """Every row of one `gaia-eval bench` run, with the machine it ran on."""

    schema_version: Literal[1] = Field(default=1, alias="schema")
    """Version of this file's layout."""
    quick: bool
    """True for the reduced `--quick` workloads (not comparable with full runs)."""
    areas: list[str]
    """The bench areas that ran, in order."""
    rows: list[BenchRowModel]
    """Every measured (or skipped) implementation."""
    meta: RunMeta
    """Machine, package version, git state and timing."""


RESULT_MODELS: tuple[type[BaseModel], ...] = (BenchResult,)
