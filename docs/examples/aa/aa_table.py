"""The A/A table of `gaia-eval compare`: how often does it call "worse" when nothing changed?

Two kinds of A/A, for the memory pr suite and the engine's toy suite (tests/engine_toy.py):

1. A rerun: the same configuration run twice, compared with `gaia-eval compare` (exit code
   and calls as a user sees them).
2. 200 seeded resampled A/A splits: one run's paired units are shuffled (seed 0 .. 199) and
   split into two halves, the first half playing the baseline and the second the current
   run, paired by position. Both halves come from the same run, so every difference is
   noise, and a test that keeps its promise calls a metric "worse" in at most alpha (5%)
   of the splits (and "better" as rarely).

The toy suite's items are 120 seeded noisy scores (value ~ U(0.3, 1), pass at >= 0.5), so its
halves really differ by chance; the memory pr suite is deterministic, and its halves differ
only by which checks landed where.

Run from a checkout:  python docs/examples/aa/aa_table.py  (writes aa_table.md beside it).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from engine_toy import ToySuite  # noqa: E402

from gaia_eval.cli.main import main as main_cli  # noqa: E402
from gaia_eval.core import runloop, stats  # noqa: E402
from gaia_eval.core.compare.engine import load  # noqa: E402
from gaia_eval.core.compare.metrics import item_metrics  # noqa: E402
from gaia_eval.core.runloop import RunRequest  # noqa: E402
from gaia_eval.core.suite import suite_class  # noqa: E402

SPLITS = 200
ALPHA = 0.05
RESAMPLES = 2000


def toy_run(tmp: Path, name: str) -> Path:
    rng = random.Random(20261202)
    rows = {f"q{i:03d}": {"value": round(rng.uniform(0.3, 1.0), 4)} for i in range(120)}
    items = tmp / "toy-items.json"
    items.write_text(json.dumps(rows))
    out = tmp / name
    runloop.run(ToySuite(items), RunRequest(command="aa", argv=["toy"], out=out))
    return out


def memory_run(tmp: Path, name: str) -> Path:
    out = tmp / name
    cmd = [sys.executable, "-m", "gaia_eval", "memory", "--suite", "pr", "--out", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, env=os.environ)
    return out


def compare_cli(base: Path, cur: Path) -> tuple[int, list[str]]:
    """`gaia-eval compare` in this process (where the toy suite is registered)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main_cli(["compare", str(base), str(cur), "--resamples", str(RESAMPLES)])
    calls = [line.rsplit(": ", 1)[1] for line in out.getvalue().splitlines() if "MDE" in line]
    return code, calls


def splits(run: Path) -> list[tuple[str, str, int, Counter[str]]]:
    side = load(str(run))
    suite = suite_class(side.env.header.suite)
    out = []
    for metric in item_metrics(suite.gate, side.env):
        units = sorted(metric.values)
        means = {u: sum(metric.values[u]) / len(metric.values[u]) for u in units}
        half = len(units) // 2
        if half < stats.MIN_PAIRED:
            continue
        calls: Counter[str] = Counter()
        for seed in range(SPLITS):
            order = units[:]
            random.Random(seed).shuffle(order)
            a = [means[u] for u in order[:half]]
            b = [means[u] for u in order[half : 2 * half]]
            res = stats.paired(a, b, metric.kind, alpha=ALPHA, resamples=RESAMPLES, seed=seed)
            calls[stats.call(res, higher_is_better=metric.higher_is_better, alpha=ALPHA)] += 1
        out.append((metric.name, metric.kind, half, calls))
    return out


def main() -> None:
    os.environ.setdefault("GAIA_EVAL_LOCK_DIR", tempfile.mkdtemp())
    lines = [
        "# A/A table of `gaia-eval compare`",
        "",
        "Written by `python docs/examples/aa/aa_table.py` (unedited output); alpha "
        f"{ALPHA}, {RESAMPLES} resamples. The script's docstring says how the splits are made.",
        "",
        "## Reruns of the same configuration",
        "",
        "| suite | exit | calls |",
        "|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        runs = {
            "memory pr": (memory_run(tmp, "mem-a"), memory_run(tmp, "mem-b")),
            "toy": (toy_run(tmp, "toy-a"), toy_run(tmp, "toy-b")),
        }
        for suite, (a, b) in runs.items():
            code, calls = compare_cli(a, b)
            tally = ", ".join(f"{n}x {c}" for c, n in Counter(calls).items())
            lines.append(f"| {suite} | {code} | {tally} |")
        lines += [
            "",
            f"## {SPLITS} seeded resampled A/A splits per suite",
            "",
            "| suite | metric | kind | pairs per split | worse | better | no detectable change "
            "| inconclusive | worse rate |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for suite, (a, _) in runs.items():
            for metric, kind, half, calls in splits(a):
                worse = calls["worse"]
                lines.append(
                    f"| {suite} | {metric} | {kind} | {half} | {worse} | {calls['better']} | "
                    f"{calls['no detectable change']} | {calls['inconclusive']} | "
                    f"{worse / SPLITS:.3f} |"
                )
    text = "\n".join(lines) + "\n"
    (HERE / "aa_table.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
