"""The code-retrieval benchmark end to end: offline suite, real-suite paths, gate, downloads."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, urlparse

import pytest
from loopback import running, url_of

from gaia_eval.cli.main import main
from gaia_eval.code_retrieval import offline_repo
from gaia_eval.code_retrieval.instances import fetch_rows, load_jsonl
from gaia_eval.code_retrieval.models import CodeSummary, QueryRecord
from gaia_eval.code_retrieval.report import summarise
from gaia_eval.code_retrieval.runner import RunOptions
from gaia_eval.code_retrieval.suite import CodeRetrievalSuite
from gaia_eval.core import runloop
from gaia_eval.core.errors import InfrastructureError, InvalidInputError, NotComparableError
from gaia_eval.core.gate import compare
from gaia_eval.core.results import Envelope, load_envelope
from gaia_eval.core.runloop import RunRequest, read_item_log
from gaia_eval.core.suite import legacy_converters

BASELINE = Path(__file__).parents[1] / "gaia_eval/baselines/code-retrieval/offline.json"


def _summary(out: Path) -> tuple[Envelope, CodeSummary]:
    env = load_envelope(out / "results.json", suite="code-retrieval")
    return env, CodeSummary.model_validate(env.summary)


def _run(tmp_path: Path, **kw: object) -> tuple[Envelope, CodeSummary]:
    out = Path(str(kw.pop("out", tmp_path / "out")))
    suite = CodeRetrievalSuite(RunOptions(work_root=tmp_path / "work", **kw))  # type: ignore[arg-type]
    runloop.run(suite, RunRequest(command="test", argv=["retrieval"], out=out))
    return _summary(out)


def test_offline_suite_runs_every_part_and_passes_its_gate(tmp_path: Path) -> None:
    out, work = tmp_path / "run", tmp_path / "work"
    rc = main(
        [
            "retrieval", "--component", "code", "--suite", "offline", "--out", str(out),
            "--work-root", str(work), "--gate", str(BASELINE),
        ]
    )  # fmt: skip
    assert rc == 0
    env, res = _summary(out)
    assert env.header.complete and res.parts == ["quality", "incremental", "robustness", "scale"]
    assert res.quality is not None and res.quality.scored == len(offline_repo.FIXES)
    assert res.incremental is not None and res.incremental.correct
    assert res.robustness is not None and res.robustness.totals == {
        "passed": 19,
        "failed": 0,
        "not_run": 0,
    }
    assert res.scale is not None and res.scale.repos[0].chunks > 0
    assert env.verdict is not None and env.verdict.passed
    raw = json.loads((out / "results.json").read_text())
    assert next(iter(raw)) == "schema" and raw["kind"] == "gaia-eval/results"
    report = (out / "report.md").read_text()
    assert "## Robustness" in report and report.index("## Gate") < report.index("## Quality")


def test_offline_repo_is_deterministic(tmp_path: Path) -> None:
    a = offline_repo.instances(offline_repo.build(tmp_path / "a"))
    b = offline_repo.instances(offline_repo.build(tmp_path / "b"))
    assert a == b and len(a) == 26
    assert all(i.patch.startswith("diff --git") for i in a)


def _mirror(tmp_path: Path) -> tuple[Path, Path]:
    mirror = tmp_path / "mirror"
    repo = offline_repo.build(mirror / "gaia-eval+invtrack")
    rows = offline_repo.instances(repo)
    inst = tmp_path / "instances.jsonl"
    inst.write_text(
        "".join(
            json.dumps({**r.__dict__, "created_at": None, "source": None}) + "\n"
            for r in reversed(rows[:4])
        )
    )
    return mirror, inst


def test_real_suite_path_with_mirror_and_instances_file(tmp_path: Path) -> None:
    mirror, inst = _mirror(tmp_path)
    env, res = _run(
        tmp_path, suite="nightly", parts=["quality"], instances_file=inst, git_mirror=mirror
    )
    assert res.quality is not None and env.header.filtered
    # Oldest base commit first, whatever the file's order.
    records = [QueryRecord.model_validate(r.result) for r in env.items]
    assert [q.id for q in records] == [f"gaia-eval__invtrack-{i}" for i in (1, 2, 3, 4)]
    assert all(q.created_at and q.created_at.startswith("2026-01-") for q in records)
    assert res.quality.summary["all"].queries == 4


def test_an_unobtainable_part_is_unmeasured_and_the_rest_kept(tmp_path: Path) -> None:
    mirror, inst = _mirror(tmp_path)
    env, res = _run(
        tmp_path,
        suite="nightly",
        parts=["quality", "incremental"],
        instances_file=inst,
        git_mirror=mirror,
    )
    assert res.quality is not None and res.quality.scored == 4
    rec = env.records()["incremental"]
    assert rec.status == "infra_error" and "pallets+flask" in (rec.error or "")
    assert not env.header.complete and env.header.infra_errors == 1
    assert "1 item(s) unmeasured" in (tmp_path / "out" / "report.md").read_text()


def test_a_quality_part_that_measured_nothing_is_exit_3(tmp_path: Path) -> None:
    _mirror_dir, inst = _mirror(tmp_path)
    empty = tmp_path / "empty-mirror"
    empty.mkdir()
    with pytest.raises(InfrastructureError, match="quality part measured none of its 4") as err:
        _run(tmp_path, suite="nightly", parts=["quality"], instances_file=inst, git_mirror=empty)
    # the message names the cause, not only the file that holds it
    assert "(first: quality/" in str(err.value) and "no clone named" in str(err.value)


def test_own_index_plugs_in_with_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_index.py").write_text(
        "from gaia_eval.systems.code_index import ReferenceCodeIndex\n"
        "CALLS = []\n"
        "def factory():\n"
        "    def build(root, cache_dir, embedder):\n"
        "        CALLS.append(str(root))\n"
        "        return ReferenceCodeIndex(root, cache_dir, embedder)\n"
        "    return build\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    mirror, inst = _mirror(tmp_path)
    env, _ = _run(
        tmp_path,
        suite="nightly",
        parts=["quality"],
        instances_file=inst,
        git_mirror=mirror,
        system="my_index:factory",
    )
    assert env.header.system == "my_index:factory"
    assert sys.modules["my_index"].CALLS  # type: ignore[attr-defined]


def _baseline() -> Envelope:
    return load_envelope(BASELINE, suite="code-retrieval", legacy=legacy_converters())


def test_committed_baseline_loads() -> None:
    base = _baseline()
    assert base.header.tier == "offline" and base.header.complete
    # 26 quality queries, and the incremental, robustness and trees parts
    assert base.header.embedder == "hash" and len(base.items) == 29
    s = CodeSummary.model_validate(base.summary)
    assert s.quality is not None and s.quality.summary["all"].semantic["file_mrr"] == 0.7046


def test_gate_refuses_unlike_runs() -> None:
    base = _baseline()
    for field, value in (("tier", "pr"), ("definition_digest", "0" * 64), ("embedder", "onnx:x")):
        other = base.model_copy(deep=True)
        setattr(other.header, field, value)
        with pytest.raises(NotComparableError, match=field):
            compare(CodeRetrievalSuite, base, other)


def _edit(base: Envelope, fn: object) -> Envelope:
    cur = base.model_copy(deep=True)
    s = CodeSummary.model_validate(cur.summary)
    fn(s)  # type: ignore[operator]
    cur.summary = s.model_dump(mode="json")
    return cur


def test_gate_fails_on_each_kind_of_regression() -> None:
    base = _baseline()
    assert compare(CodeRetrievalSuite, base, base, tolerance=0).passed

    def drop(by: float) -> object:
        def fn(s: CodeSummary) -> None:
            assert s.quality is not None
            for st in s.quality.summary.values():  # `all` and its one query set alike
                st.semantic["file_mrr"] = (st.semantic["file_mrr"] or 0) - by

        return fn

    v = compare(CodeRetrievalSuite, base, _edit(base, drop(0.06)))
    assert not v.passed and "offline/semantic file_mrr" in v.failures[0]
    assert compare(CodeRetrievalSuite, base, _edit(base, drop(0.04))).passed

    def breakage(s: CodeSummary) -> None:
        assert s.incremental is not None and s.robustness is not None
        s.incremental.correct = False
        s.robustness.scenarios[0].passed = False
        s.robustness.trees[0].status = "not-run"

    failures = compare(CodeRetrievalSuite, base, _edit(base, breakage)).failures
    assert len(failures) == 3, failures
    # A part in the baseline but not run now fails; one only run now is not gated.
    cur = base.model_copy(deep=True)
    cur.items = [r for r in cur.items if not r.id.startswith("quality/")]
    cur.header.item_ids = [r.id for r in cur.items]
    cur.header.filtered = True
    cur.summary = summarise(cur).model_dump(mode="json")
    v = compare(CodeRetrievalSuite, base, cur)
    assert not v.passed and any("26 baseline item(s) not asked" in f for f in v.failures)
    v = compare(CodeRetrievalSuite, cur, base)
    assert v.passed and any("quality part is not in the baseline" in n for n in v.notes)


def test_instances_file_errors_name_file_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "rows.jsonl"
    bad.write_text('{"instance_id": "a", "repo": "o/n", "base_commit": "c"}\n')
    with pytest.raises(InvalidInputError, match=r"rows.jsonl:1: field `problem_statement`"):
        load_jsonl(bad)
    bad.write_text("not json\n")
    with pytest.raises(InvalidInputError, match=r"rows.jsonl:1: not valid JSON"):
        load_jsonl(bad)


class _Rows(BaseHTTPRequestHandler):
    pages: ClassVar[dict[int, bytes]] = {}
    hits: ClassVar[list[int]] = []

    def do_GET(self) -> None:
        q = parse_qs(urlparse(self.path).query)
        offset = int(q["offset"][0])
        self.hits.append(offset)
        body = self.pages[offset]
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def rows_server() -> Iterator[str]:
    with running(_Rows) as server:
        yield url_of(server)


def _page(start: int, n: int, total: int) -> bytes:
    rows = [
        {
            "row": {
                "instance_id": f"o__n-{i}",
                "repo": "o/n",
                "base_commit": "abc1234",
                "problem_statement": "p",
                "patch": "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
            }
        }
        for i in range(start, start + n)
    ]
    return json.dumps({"rows": rows, "num_rows_total": total}).encode()


def test_download_pages_cache_pin_and_offline(rows_server: str, tmp_path: Path) -> None:
    _Rows.pages = {0: _page(0, 100, 130), 100: _page(100, 30, 130)}
    _Rows.hits = []
    got = fetch_rows("o/ds", "test", tmp_path, base_url=rows_server)
    assert len(got) == 130 and _Rows.hits == [0, 100]
    again = fetch_rows("o/ds", "test", tmp_path, offline=True)
    assert again == got and _Rows.hits == [0, 100]  # served from the cache
    with pytest.raises(InfrastructureError, match="offline"):
        fetch_rows("o/other", "test", tmp_path, offline=True)
    cached = next((tmp_path / "instances").glob("*/rows-000100.json"))
    cached.write_bytes(_page(100, 29, 130))
    with pytest.raises(InfrastructureError, match="changed since it was pinned"):
        fetch_rows("o/ds", "test", tmp_path, offline=True)


def test_clones_from_a_url_template_into_a_cache_that_outlives_the_run(tmp_path: Path) -> None:
    mirror, inst = _mirror(tmp_path)
    served = tmp_path / "served" / "gaia-eval"
    served.mkdir(parents=True)
    (mirror / "gaia-eval+invtrack").rename(served / "invtrack")
    _, res = _run(
        tmp_path,
        suite="nightly",
        parts=["quality"],
        instances_file=inst,
        url_template=f"file://{tmp_path / 'served'}/{{repo}}",
    )
    assert res.quality is not None and res.quality.summary["all"].queries == 4
    assert (tmp_path / "work/git-cache/gaia-eval+invtrack.git").is_dir()


def test_nightly_draw_samples_verified_and_rebench_from_the_datasets_server(
    rows_server: str, tmp_path: Path
) -> None:
    from dataclasses import replace

    from gaia_eval.code_retrieval import suites

    mirror, _ = _mirror(tmp_path)
    rows = offline_repo.instances(mirror / "gaia-eval+invtrack")

    def page(items: list[offline_repo.Instance]) -> bytes:
        return json.dumps(
            {
                "rows": [{"row": {**i.__dict__, "source": None}} for i in items],
                "num_rows_total": len(items),
            }
        ).encode()

    # One server answers both datasets; the split decides which page it serves.
    verified, rebench = page(rows[:6]), page(rows[6:])
    _Rows.pages = {0: verified}
    suite = replace(
        suites.get("nightly"), sample=3, rebench_splits=("2026_01",), rebench_per_split=2,
        max_repo_chunks=10_000,
    )  # fmt: skip
    opts = RunOptions(
        suite="nightly", datasets_url=rows_server, work_root=tmp_path / "work", git_mirror=mirror
    )

    def _draw(runner: CodeRetrievalSuite) -> list[object]:
        from gaia_eval.code_retrieval.runner import nightly_sample

        o = runner.opts
        return list(
            nightly_sample(runner.definition, o, runner.work, runner.repos, runner._excluded)
        )

    def sampled(definition: suites.Suite, options: RunOptions) -> tuple[list[object], list[object]]:
        runner = CodeRetrievalSuite(options)
        runner.definition = definition
        try:
            return list(_draw(runner)), list(runner._excluded)
        finally:
            runner.teardown()

    orig = _Rows.do_GET

    def by_split(self: _Rows) -> None:
        split = parse_qs(urlparse(self.path).query)["split"][0]
        _Rows.pages = {0: rebench if split == "2026_01" else verified}
        orig(self)

    _Rows.do_GET = by_split  # type: ignore[method-assign]
    try:
        picks, excluded = sampled(suite, opts)
    finally:
        _Rows.do_GET = orig  # type: ignore[method-assign]
    assert len(picks) == 5 and not excluded
    assert [p.source for p in picks].count("swe-rebench") == 2  # type: ignore[attr-defined]
    again, _ = sampled(suite, replace(opts, offline=True))
    assert again == picks  # pinned cache, same seed, same draw
    small = replace(suite, max_repo_chunks=5)
    runner = CodeRetrievalSuite(replace(opts, offline=True))
    runner.definition = small
    try:
        with pytest.raises(InvalidInputError, match="fit the size cap"):
            _draw(runner)
        assert runner._excluded and "chunks > cap" in str(runner._excluded[0])
    finally:
        runner.teardown()


_SLOW_INDEX = """
import time
from gaia_eval.systems.code_index import ReferenceCodeIndex

class Slow(ReferenceCodeIndex):
    def search(self, *a, **k):
        time.sleep(0.25)
        return super().search(*a, **k)

def factory():
    return lambda root, cache_dir, embedder: Slow(root, cache_dir, embedder)
"""


def _quality_view(env: Envelope) -> dict[str, object]:
    """What a resumed or merged run must reproduce exactly: every query's ranked files and
    symbols, and the quality summary (timings excluded)."""
    rows = {}
    for rec in env.items:
        if rec.id.startswith("quality/") and rec.result:
            q = QueryRecord.model_validate(rec.result)
            rows[q.id] = (
                q.status,
                q.semantic.top_files if q.semantic else None,
                q.semantic.files if q.semantic else None,
                q.lexical.top_files if q.lexical else None,
            )
    s = CodeSummary.model_validate(env.summary)
    return {"rows": rows, "summary": s.quality.summary if s.quality else None}


def test_killed_offline_run_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import time

    (tmp_path / "slow_index.py").write_text(_SLOW_INDEX)
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    out = tmp_path / "run"
    argv = ["retrieval", "--component", "code", "--suite", "offline", "--parts", "quality",
            "--system", "slow_index:factory", "--work-root", str(tmp_path / "work")]  # fmt: skip
    with (tmp_path / "stderr.txt").open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gaia_eval", *argv, "--out", str(out)],
            env=env, stdout=subprocess.DEVNULL, stderr=err,
        )  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(read_item_log(out / "items.jsonl")) < 3:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    kept = read_item_log(out / "items.jsonl")
    assert 3 <= len(kept) < 10, (tmp_path / "stderr.txt").read_text()
    # `--resume DIR` alone re-runs the recorded command line for the items left.
    import importlib

    sys.path.insert(0, str(tmp_path))
    try:
        importlib.invalidate_caches()
        assert main(["retrieval", "--resume", str(out)]) == 0
        assert main([*argv, "--out", str(tmp_path / "straight")]) == 0
    finally:
        sys.path.remove(str(tmp_path))
    resumed, _ = _summary(out)
    straight, _ = _summary(tmp_path / "straight")
    assert resumed.header.complete
    assert _quality_view(resumed) == _quality_view(straight)
    assert {r.id: r.ran_at for r in resumed.items if r.id in {k.id for k in kept}} == {
        k.id: k.ran_at for k in kept
    }


def test_offline_shards_merge_to_the_unsharded_run(tmp_path: Path) -> None:
    from gaia_eval.core.merge import merge

    base = ["retrieval", "--component", "code", "--suite", "offline",
            "--work-root", str(tmp_path / "work")]  # fmt: skip
    for name, extra in (("s1", ["--shard", "1/2"]), ("s2", ["--shard", "2/2"]), ("all", [])):
        assert main([*base, *extra, "--out", str(tmp_path / name)]) == 0
    merged, _, cls = merge([tmp_path / "s1", tmp_path / "s2"], tmp_path / "merged")
    whole, _ = _summary(tmp_path / "all")
    assert merged.header.complete and _quality_view(merged) == _quality_view(whole)
    assert compare(cls, whole, merged, tolerance=0).passed
    assert compare(cls, merged, whole, tolerance=0).passed
    # The merged folder gates through the CLI too.
    shards = [str(tmp_path / "s1"), str(tmp_path / "s2")]
    gate_flags = ["--gate", "builtin:code-retrieval/offline"]
    assert main(["merge", *shards, "--out", str(tmp_path / "m2"), *gate_flags]) == 0
    assert main(["merge", str(tmp_path / "s1"), "--out", str(tmp_path / "m3")]) == 2


def test_an_option_shaped_commit_never_reaches_git(tmp_path: Path) -> None:
    """Security: `"base_commit": "--output=FILE"` used to make `git log` overwrite FILE."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    rows = tmp_path / "rows.jsonl"
    row = {
        "instance_id": "o__n-1",
        "repo": "gaia-eval/invtrack",
        "base_commit": f"--output={victim}",
        "problem_statement": "p",
        "patch": "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
    }
    rows.write_text(json.dumps(row) + "\n")
    with pytest.raises(InvalidInputError, match="is not a commit id"):
        load_jsonl(rows)
    for bad_repo in ("--upload-pack=touch x", "../etc", "a/.hidden", "-x/y"):
        rows.write_text(json.dumps({**row, "base_commit": "abc1234", "repo": bad_repo}) + "\n")
        with pytest.raises(InvalidInputError, match="not a repository name"):
            load_jsonl(rows)
    assert victim.read_text() == "keep me"


def test_offline_never_clones_from_the_network(tmp_path: Path) -> None:
    from gaia_eval.code_retrieval.repos import Repos

    repos = Repos(tmp_path / "trees", None, "https://github.com/{repo}.git", offline=True)
    with pytest.raises(InfrastructureError, match="would use the network"):
        repos.source("psf/requests")
    assert not (tmp_path / "trees" / "git-cache").exists()


def test_committed_pre_engine_baseline_loads_through_the_legacy_converter() -> None:
    # offline.json is an envelope now; pr-hash.json was written before the suite engine
    # (schema 1) and is converted on every read, so the converter keeps a committed input
    old = BASELINE.with_name("pr-hash.json")
    assert '"environment"' in old.read_text(encoding="utf-8")
    base = load_envelope(old, suite="code-retrieval", legacy=legacy_converters())
    assert base.header.tier == "pr" and base.header.complete
    assert base.header.embedder == "hash" and len(base.items) == 13
    s = CodeSummary.model_validate(base.summary)
    assert s.quality is not None and s.quality.summary["all"].semantic["file_mrr"] == 0.176
