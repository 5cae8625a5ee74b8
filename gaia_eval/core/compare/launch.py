"""`gaia-eval compare` as one call (cli/compare.py parses its arguments): compare two runs,
print every metric's call, write compare.json / .md / .html, and map the result to an exit
code (1 when a gated metric is worse)."""

from __future__ import annotations

from pathlib import Path

from gaia_eval._native import MAX_RESAMPLES
from gaia_eval.core.compare import render
from gaia_eval.core.compare.engine import compare, load_pair
from gaia_eval.core.errors import EXIT_GATE_FAILED, EXIT_OK, InvalidInputError
from gaia_eval.core.results_io import scrub_text, write_json, write_text


def run(
    baseline: str, current: str, *, out: Path | None, alpha: float, resamples: int, seed: int
) -> int:
    """The exit code of `gaia-eval compare BASELINE CURRENT`."""
    if resamples > MAX_RESAMPLES:
        msg = f"--resamples must be at most {MAX_RESAMPLES}, got {resamples}"
        raise InvalidInputError(msg)
    baseline_run, current_run = load_pair(baseline, current)
    cmp = compare(baseline_run, current_run, alpha=alpha, resamples=resamples, seed=seed)
    for c in cmp.changed:
        print(scrub_text(f"changed: {c.field}: {c.baseline} -> {c.current}"))
    for m in cmp.metrics:
        p = "no power" if m.p_value is None else f"p={m.p_value:.4g}"
        gated = " (gated)" if m.gated else ""
        print(
            f"{m.name}{gated}: {m.baseline:.3f} -> {m.current:.3f}, change {m.delta:+.3f} "
            f"[{m.low:+.3f}, {m.high:+.3f}], {p}, MDE {m.mde:.3f}: {m.call}"
        )
    for line in cmp.notes:
        print(f"note: {line}")
    if cmp.only_baseline or cmp.only_current:
        only = f"{len(cmp.only_baseline)} baseline, {len(cmp.only_current)} current"
        print(f"items in one run only: {only}")
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        print(f"  json: {write_json(out / 'compare.json', cmp)}")
        print(f"  md: {write_text(out / 'compare.md', render.markdown(cmp))}")
        print(f"  html: {write_text(out / 'compare.html', render.html(cmp))}")
    if cmp.worse:
        print(f"WORSE: {', '.join(cmp.worse)}")
        return EXIT_GATE_FAILED
    return EXIT_OK
