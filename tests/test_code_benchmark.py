"""The code-retrieval benchmark end to end: offline suite, real-suite paths, gate, downloads."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, urlparse

import pytest

from gaia_eval.cli.main import main
from gaia_eval.code_retrieval import gate, offline_repo
from gaia_eval.code_retrieval.instances import fetch_rows, load_jsonl
from gaia_eval.code_retrieval.models import CodeRetrievalResults
from gaia_eval.code_retrieval.runner import RunOptions, run
from gaia_eval.core.errors import InfrastructureError, InvalidInputError, NotComparableError
from gaia_eval.core.results_io import read_json

BASELINE = Path(__file__).parents[1] / "gaia_eval/baselines/code-retrieval/offline.json"


def test_offline_suite_runs_every_part_and_passes_its_gate(tmp_path: Path) -> None:
    out, work = tmp_path / "run", tmp_path / "work"
    rc = main(
        [
            "retrieval", "--component", "code", "--suite", "offline", "--out", str(out),
            "--work-root", str(work), "--gate", str(BASELINE),
        ]
    )  # fmt: skip
    assert rc == 0
    res = CodeRetrievalResults.model_validate(read_json(out / "results.json"))
    assert res.error is None and res.parts == ["quality", "incremental", "robustness", "scale"]
    assert res.quality is not None and len(res.quality.queries) == len(offline_repo.FIXES)
    assert all(q.status == "scored" for q in res.quality.queries)
    assert res.incremental is not None and res.incremental.correct
    assert res.robustness is not None and res.robustness.totals == {
        "passed": 19,
        "failed": 0,
        "not_run": 0,
    }
    assert res.scale is not None and res.scale.repos[0].chunks > 0
    assert res.comparison is not None and res.comparison["passed"] is True
    raw = json.loads((out / "results.json").read_text())
    assert next(iter(raw)) == "schema" and raw["schema"] == 1
    assert "## Robustness" in (out / "report.md").read_text()


def test_offline_repo_is_deterministic(tmp_path: Path) -> None:
    a = offline_repo.instances(offline_repo.build(tmp_path / "a"))
    b = offline_repo.instances(offline_repo.build(tmp_path / "b"))
    assert a == b and len(a) == 10
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
    res, _ = run(
        RunOptions(
            suite="nightly",
            parts=["quality"],
            out=tmp_path / "out",
            work_root=tmp_path / "work",
            instances_file=inst,
            git_mirror=mirror,
        )
    )
    assert res.quality is not None
    # Oldest base commit first, whatever the file's order.
    assert [q.id for q in res.quality.queries] == [f"gaia-eval__invtrack-{i}" for i in (1, 2, 3, 4)]
    assert all(q.created_at and q.created_at.startswith("2026-01-") for q in res.quality.queries)
    assert res.quality.summary["all"].queries == 4


def test_a_crash_keeps_finished_parts_on_disk(tmp_path: Path) -> None:
    mirror, inst = _mirror(tmp_path)
    with pytest.raises(InvalidInputError, match="pallets\\+flask"):
        run(
            RunOptions(
                suite="nightly",
                parts=["quality", "incremental"],
                out=tmp_path / "out",
                work_root=tmp_path / "work",
                instances_file=inst,
                git_mirror=mirror,
            )
        )
    saved = CodeRetrievalResults.model_validate(read_json(tmp_path / "out/results.json"))
    assert saved.quality is not None and len(saved.quality.queries) == 4
    assert saved.error is not None and "pallets+flask" in saved.error


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
    res, _ = run(
        RunOptions(
            suite="nightly",
            parts=["quality"],
            out=tmp_path / "out",
            work_root=tmp_path / "work",
            instances_file=inst,
            git_mirror=mirror,
            system="my_index:factory",
        )
    )
    assert res.environment.system == "my_index:factory"
    assert sys.modules["my_index"].CALLS  # type: ignore[attr-defined]


def _baseline() -> CodeRetrievalResults:
    return CodeRetrievalResults.model_validate(read_json(BASELINE))


def test_gate_refuses_unlike_runs() -> None:
    base = _baseline()
    for field, value in (("suite", "pr"), ("query_set", "0" * 64)):
        other = base.model_copy(update={field: value})
        with pytest.raises(NotComparableError):
            gate.compare(base, other)
    env = base.environment.model_copy(update={"embedding_model": "onnx:x"})
    with pytest.raises(NotComparableError, match="embedder"):
        gate.compare(base, base.model_copy(update={"environment": env}))


def test_gate_fails_on_each_kind_of_regression() -> None:
    base = _baseline()
    assert gate.compare(base, base).passed
    cur = base.model_copy(deep=True)
    assert cur.quality is not None
    m = cur.quality.summary["all"].semantic
    m["file_mrr"] = (m["file_mrr"] or 0) - 0.06
    v = gate.compare(base, cur)
    assert not v.passed and "file_mrr" in v.failures[0]
    m["file_mrr"] = (base.quality.summary["all"].semantic["file_mrr"] or 0) - 0.04  # type: ignore[union-attr]
    assert gate.compare(base, cur).passed
    cur = base.model_copy(deep=True)
    assert cur.incremental is not None and cur.robustness is not None
    cur.incremental.correct = False
    cur.robustness.scenarios[0].passed = False
    cur.robustness.trees[0].status = "not-run"
    failures = gate.compare(base, cur).failures
    assert len(failures) == 3
    cur = base.model_copy(update={"quality": None})
    assert "only one" in gate.compare(base, cur).failures[0]


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
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Rows)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _page(start: int, n: int, total: int) -> bytes:
    rows = [
        {
            "row": {
                "instance_id": f"o__n-{i}",
                "repo": "o/n",
                "base_commit": "abc",
                "problem_statement": "p",
                "patch": "diff",
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
    res, _ = run(
        RunOptions(
            suite="nightly",
            parts=["quality"],
            out=tmp_path / "out",
            work_root=tmp_path / "work",
            instances_file=inst,
            url_template=f"file://{tmp_path / 'served'}/{{repo}}",
        )
    )
    assert res.quality is not None and res.quality.summary["all"].queries == 4
    assert (tmp_path / "work/git-cache/gaia-eval+invtrack.git").is_dir()


def test_nightly_draw_samples_verified_and_rebench_from_the_datasets_server(
    rows_server: str, tmp_path: Path
) -> None:
    from dataclasses import replace

    from gaia_eval.code_retrieval import suites
    from gaia_eval.code_retrieval.repos import Repos
    from gaia_eval.code_retrieval.runner import _sampled

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
    opts = RunOptions(datasets_url=rows_server)
    repos = Repos(tmp_path / "trees", mirror)
    excluded: list[object] = []

    orig = _Rows.do_GET

    def by_split(self: _Rows) -> None:
        split = parse_qs(urlparse(self.path).query)["split"][0]
        _Rows.pages = {0: rebench if split == "2026_01" else verified}
        orig(self)

    _Rows.do_GET = by_split  # type: ignore[method-assign]
    try:
        picks = _sampled(suite, opts, tmp_path / "work", repos, excluded)  # type: ignore[arg-type]
    finally:
        _Rows.do_GET = orig  # type: ignore[method-assign]
    assert len(picks) == 5 and not excluded
    assert [p.source for p in picks].count("swe-rebench") == 2
    again = _sampled(suite, replace(opts, offline=True), tmp_path / "work", repos, [])
    assert again == picks  # pinned cache, same seed, same draw
    small = replace(suite, max_repo_chunks=5)
    with pytest.raises(InvalidInputError, match="fit the size cap"):
        _sampled(small, replace(opts, offline=True), tmp_path / "work", repos, excluded)  # type: ignore[arg-type]
    assert excluded and "chunks > cap" in str(excluded[0])
