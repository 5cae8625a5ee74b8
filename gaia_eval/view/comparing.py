"""The Compare page's calls come from the comparison engine (core.compare), imported only
when a Compare page is drawn."""

from __future__ import annotations

from typing import Any

from gaia_eval.view.index import IndexedRun
from gaia_eval.view.pages import Comparer


def comparer() -> Comparer | None:
    """(baseline, current) -> core.compare's Comparison; None without the engine."""
    try:
        from gaia_eval.core.compare import engine  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        return None

    def run(a: IndexedRun, b: IndexedRun) -> Any:
        return engine.compare(engine.load(str(a.folder)), engine.load(str(b.folder)))

    return run
