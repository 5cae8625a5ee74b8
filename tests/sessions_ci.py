"""CI check of `gaia-eval sessions` as a user runs it: `--dataset-only` on the committed
fixture transcripts, then a full replay with the `replay` harness and a scripted judge
served over a real loopback socket (`nox -s sessions_ci`).

The judge gives the reference-verbatim answer 5, so the run must score 5.0 on every case.
Writes under eval/results/ (git-ignored); exits non-zero on any mismatch.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gaia_eval.core.rundir import RESULTS_ROOT  # noqa: E402
from tests.tasks_fakes import FakeLLM, serve  # noqa: E402

FIXTURE = ROOT / "tests" / "data" / "sessions"
OUT = ROOT / RESULTS_ROOT


def _grader(body: dict[str, Any]) -> dict[str, Any]:
    text = body["messages"][-1]["content"]
    answer = text.split("ANSWER TO GRADE:\n", 1)[1]
    reference = text.split("REFERENCE ANSWER:\n", 1)[1].split("\n\nANSWER TO GRADE:", 1)[0]
    score = 5 if answer == reference else 1
    return {"content": json.dumps({"score": score, "verdict": "scripted", "rationale": "ci"})}


def _run(*argv: str) -> None:
    cmd = [sys.executable, "-m", "gaia_eval", "sessions", *argv]
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, cwd=ROOT, check=True)


def main() -> int:
    ds, run = OUT / "sessions-ci-dataset", OUT / "sessions-ci-replay"
    for folder in (ds, run):
        shutil.rmtree(folder, ignore_errors=True)  # a run never writes into an old folder
    _run("--claude-dir", str(FIXTURE), "--dataset-only", "--out", str(ds))
    cases = json.loads((ds / "dataset.json").read_text())["cases"]
    assert [c["id"] for c in cases] == ["5e55f1c7-000", "5e55f1c7-001", "5e55f1c7-002"], cases
    fake = FakeLLM([_grader] * 10)
    with serve(fake) as url:
        _run("--claude-dir", str(FIXTURE), "--harness", "replay", "--replay", "reference",
             "--judge-model", f"openai:{url}/v1#scripted-judge", "--out", str(run))  # fmt: skip
    card = json.loads((run / "scorecard.json").read_text())
    assert (card["cases"], card["scored"], card["mean_score"]) == (3, 3, 5.0), card
    assert len(fake.requests) == 3, len(fake.requests)
    print(f"sessions CI: dataset {len(cases)} cases; replay mean {card['mean_score']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
