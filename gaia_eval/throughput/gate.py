"""The performance gate (spec §9): absolute bars from a manifest, checked on every level.
Pure: a manifest and an envelope in, a Verdict out.

With `enforce: false` (the spec's default) a miss is reported in the verdict's notes and
the gate passes (report mode); with `enforce: true` each miss is a failure (exit 1). A bar
whose number was not measured (no server memory for a remote server) is noted, never a
pass or a failure.
"""

from __future__ import annotations

from pathlib import Path

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results import Envelope, MetricCheck, Verdict
from gaia_eval.throughput.models import GateManifest, LevelResult

DEFAULT_MANIFEST = GateManifest(
    ttft_max_s=15.0,
    throughput_min_tps=8.0,
    pipeline_max_s=2700.0,
    peak_memory_max_gb=16.0,
    enforce=False,
)
"""The spec's bars (TTFT is cold-start dominated, so the bar is loose)."""


def load_manifest(path: Path) -> GateManifest:
    """A JSON or YAML manifest; unknown keys and bad values are errors naming the file."""
    import yaml
    from pydantic import ValidationError

    from gaia_eval.core.yamltext import load_yaml

    try:
        data = load_yaml(Path(path).read_text(encoding="utf-8"), f"--gate {path}")
    except OSError as err:
        msg = f"--gate {path}: cannot read ({err.strerror or err})"
        raise InvalidInputError(msg) from err
    except yaml.YAMLError as err:
        msg = f"--gate {path}: not JSON or YAML ({err})"
        raise InvalidInputError(msg) from err
    if not isinstance(data, dict):
        msg = (
            f"--gate {path}: expected a mapping of ttft_max_s, throughput_min_tps, "
            "pipeline_max_s, peak_memory_max_gb, enforce"
        )
        raise InvalidInputError(msg)
    try:
        return GateManifest.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        msg = f"--gate {path}: field '{field}': {first['msg']}"
        raise InvalidInputError(msg) from err


def manifest_verdict(manifest: GateManifest, label: str, env: Envelope) -> Verdict:
    """Check every measured level against the manifest's bars."""
    misses: list[str] = []
    notes: list[str] = []
    checks: list[MetricCheck] = []
    levels = [LevelResult.model_validate(r.result).stats for r in env.items if r.result is not None]
    if not levels:
        misses.append("no level was measured")
    for s in levels:
        tri = s.triage
        ttft_ms = tri.avg_ttft_ms if tri is not None else s.ttft_ms.mean
        tps = tri.avg_tokens_per_second if tri is not None else s.decode_tps_mean
        bars: list[tuple[str, float | None, float | None, bool]] = [
            ("ttft_s", None if ttft_ms is None else ttft_ms / 1000, manifest.ttft_max_s, False),
            ("decode_tps", tps, manifest.throughput_min_tps, True),
            ("pipeline_s", s.duration_s, manifest.pipeline_max_s, False),
            ("peak_memory_gb", s.peak_memory_gb, manifest.peak_memory_max_gb, False),
        ]
        for name, value, bar, higher in bars:
            if bar is None:
                continue
            metric = f"{s.level} {name}"
            if value is None:
                notes.append(f"{metric}: not measured, bar {bar:g} not checked")
                continue
            ok = value >= bar if higher else value <= bar
            checks.append(
                MetricCheck(
                    name=metric,
                    baseline=bar,
                    current=round(value, 4),
                    allowed=0.0,
                    rule=f"{'>=' if higher else '<='} {bar:g}",
                    passed=ok,
                )
            )
            if not ok:
                misses.append(f"{metric} = {value:.3f}, bar {'>=' if higher else '<='} {bar:g}")
    if manifest.enforce:
        failures = misses
    else:
        failures = []
        notes = [f"report mode (enforce: false), would fail: {m}" for m in misses] + notes
    return Verdict(
        passed=not failures, baseline=label, failures=failures, notes=notes, metrics=checks
    )
