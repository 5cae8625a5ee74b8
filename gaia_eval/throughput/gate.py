"""The performance gate (spec §9): absolute bars from a manifest, checked on every level
by the engine's fixed-bar rule kind (core.gate.check_bars). Pure: a manifest and an
envelope in, a Verdict out.

With `enforce: false` (the spec's default) a miss is reported in the verdict's notes and
the gate passes (report mode); with `enforce: true` each miss is a failure (exit 1). A bar
whose number was not measured (no server memory for a remote server) is noted, never a
pass or a failure.
"""

from __future__ import annotations

from pathlib import Path

from gaia_eval.core.compare.metrics import Distribution
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.gate import Bar, GateRules, check_bars
from gaia_eval.core.results import Envelope, Verdict
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


def bars(manifest: GateManifest, env: Envelope) -> tuple[dict[str, float | None], list[Bar]]:
    """The manifest's bars on every measured level, and the levels' numbers, by
    `<level> <number>` (`c1 ttft_s`)."""
    values: dict[str, float | None] = {}
    out: list[Bar] = []
    levels = [LevelResult.model_validate(r.result).stats for r in env.items if r.result is not None]
    if not levels:  # a bar that fails: nothing was measured to hold to the manifest
        return {"levels measured": 0}, [Bar("levels measured", 1, rule=">= 1 level measured")]
    for s in levels:
        tri = s.triage
        ttft_ms = tri.avg_ttft_ms if tri is not None else s.ttft_ms.mean
        tps = tri.avg_tokens_per_second if tri is not None else s.decode_tps_mean
        rows: list[tuple[str, float | None, float | None, bool]] = [
            ("ttft_s", None if ttft_ms is None else ttft_ms / 1000, manifest.ttft_max_s, False),
            ("decode_tps", tps, manifest.throughput_min_tps, True),
            ("pipeline_s", s.duration_s, manifest.pipeline_max_s, False),
            ("peak_memory_gb", s.peak_memory_gb, manifest.peak_memory_max_gb, False),
        ]
        for name, value, limit, higher in rows:
            if limit is None:
                continue
            metric = f"{s.level} {name}"
            values[metric] = value
            out.append(Bar(metric, limit, higher_is_better=higher))
    return values, out


def manifest_verdict(manifest: GateManifest, label: str, env: Envelope) -> Verdict:
    """Check every measured level against the manifest's bars (the engine's fixed bars)."""
    values, rules = bars(manifest, env)
    return check_bars(values, rules, label=label, enforce=manifest.enforce)


def latencies(env: Envelope) -> list[Distribution]:
    """Every request's TTFT and E2E per load level (repeats pooled), for `gaia-eval compare`."""
    out: dict[tuple[str, str], Distribution] = {}
    for rec in env.items:
        if rec.status != "ok" or not rec.result:
            continue
        res = LevelResult.model_validate(rec.result)
        for row in res.requests:
            for name in ("ttft_ms", "e2e_ms"):
                value = getattr(row, name)
                if value is not None:
                    key = (res.stats.level, name)
                    out.setdefault(key, Distribution(*key)).values.append(float(value))
    return [out[k] for k in sorted(out)]


GATE = GateRules(distributions=latencies)
"""Nothing is gated against a baseline run (the bars above are the benchmark's gate);
what `gaia-eval compare` compares between two runs: the latency distributions."""
