"""The RAG pr suite on the engine, for real (reference system, `--embedder hash`):
killed with SIGKILL and resumed, and split into shards and merged, it yields the results
of one uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.cli.main import main
from gaia_eval.core.gate import compare
from gaia_eval.core.results import Envelope, load_envelope
from gaia_eval.core.runloop import read_item_log
from gaia_eval.retrieval.suite import RagSuite

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

PR = ["retrieval", "--component", "rag", "--suite", "pr", "--embedder", "hash"]
# The same CLI in a child process whose searches are slowed down, so a kill lands while
# the questions run (the real run answers 55 in well under a second).
SLOW_CHILD = textwrap.dedent(
    """
    import sys, time
    from gaia_eval.systems.rag.system import RagSystem
    search = RagSystem.search
    def slow(self, query, k):
        time.sleep(0.04)
        return search(self, query, k)
    RagSystem.search = slow
    from gaia_eval.cli.main import main
    sys.exit(main(sys.argv[1:]))
    """
)


@pytest.fixture(scope="module")
def straight(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One uninterrupted pr run (module-wide: every test compares against it)."""
    out = tmp_path_factory.mktemp("rag") / "straight"
    old = os.environ.get("GAIA_EVAL_LOCK_DIR")
    os.environ["GAIA_EVAL_LOCK_DIR"] = str(tmp_path_factory.mktemp("lock"))
    try:
        assert main([*PR, "--out", str(out)]) == 0
    finally:
        if old is None:
            os.environ.pop("GAIA_EVAL_LOCK_DIR", None)
        else:
            os.environ["GAIA_EVAL_LOCK_DIR"] = old
    return out


def _load(folder: Path) -> Envelope:
    return load_envelope(folder / "results.json")


def _ranks(env: Envelope) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for rec in env.items:
        r = rec.result or {}
        if rec.id.startswith("hard/"):
            out[rec.id] = (rec.status, r.get("status"))
        else:
            keys = ("sdk_rank", "sdk_doc_rank", "agent_rank", "agent_returned")
            out[rec.id] = (rec.status, *(r[k] for k in keys), r["evidence_not_indexed"])
    return out


def _measured(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary without what a clock measures (latency, index timings and memory)."""
    out = {"hard_cases": summary["hard_cases"], "datasets": []}
    for d in summary["datasets"]:
        s = {k: v for k, v in d["summary"].items() if not k.endswith("_latency")}
        ix = d["index"]
        index = {k: ix[k] for k in ("documents", "indexed", "failed", "chunks", "degraded")}
        index["unlocated_chunks"] = ix["unlocated_chunks"]
        out["datasets"].append({"summary": s, "by_tag": d["by_tag"], "index": index})
    return out


def _same(a: Envelope, b: Envelope) -> None:
    assert _ranks(a) == _ranks(b)
    assert _measured(a.summary) == _measured(b.summary)
    assert compare(RagSuite, a, b, tolerance=0).passed
    assert compare(RagSuite, b, a, tolerance=0).passed


def test_sigkill_then_resume_equals_an_uninterrupted_run(straight: Path, tmp_path: Path) -> None:
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_CHILD, *PR, "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while len(read_item_log(out / "items.jsonl")) < 5:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "no items logged"
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    if proc.stderr is not None:
        proc.stderr.close()
    temp = list(Path(tempfile.gettempdir()).glob(f"gaia-eval-run-{proc.pid}-*"))
    assert temp, "the killed run's temp folder should be left behind"
    done = read_item_log(out / "items.jsonl")
    assert 5 <= len(done) < 61  # kept partway, not finished
    assert (out / "results.json").is_file()

    assert main(["retrieval", "--resume", str(out)]) == 0  # the recorded command line
    resumed = _load(out)
    assert resumed.header.complete and resumed.header.items_total == 61
    assert resumed.header.run.argv[-2:] == ["--resume", str(out)]
    # The first part's records were kept, not re-run.
    first = {r.id: r.ran_at for r in done}
    assert all(resumed.records()[i].ran_at == t for i, t in first.items())
    # The stale temp folder of the killed run is gone.
    assert not any(p.exists() for p in temp)
    _same(resumed, _load(straight))


def test_two_shards_merged_equal_the_unsharded_run(straight: Path, tmp_path: Path) -> None:
    parts = [tmp_path / "s1", tmp_path / "s2"]
    for i, part in enumerate(parts, start=1):
        assert main([*PR, "--shard", f"{i}/2", "--out", str(part)]) == 0
    one, two = (_load(p) for p in parts)
    ids = [set(one.header.item_ids), set(two.header.item_ids)]
    assert ids[0] and ids[1] and not ids[0] & ids[1]
    assert ids[0] | ids[1] == set(_load(straight).header.item_ids)
    merged = tmp_path / "merged"
    gate = ["--gate", str(straight / "results.json"), "--tolerance", "0"]
    assert main(["merge", *map(str, parts), "--out", str(merged), *gate]) == 0
    env = _load(merged)
    assert env.header.complete and env.header.shards == ["1/2", "2/2"]
    assert env.verdict is not None and env.verdict.passed
    _same(env, _load(straight))
