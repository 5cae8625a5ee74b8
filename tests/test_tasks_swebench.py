"""The swebench suite without Docker: rows from a loopback datasets-server and the cache,
the sealed checkout built from a local mirror, the bare toolchain, the prompt, and
predictions.jsonl from a real run of the replay harness."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from loopback import running, url_of
from swebench_fixtures import cache_row, git, make_repo, row

from gaia_eval.agents import checkout
from gaia_eval.agents.models import Transcript
from gaia_eval.cli.main import main
from gaia_eval.core.errors import InfrastructureError
from gaia_eval.core.results import load_envelope
from gaia_eval.tasks import swebench, swebench_data
from gaia_eval.tasks.models import TaskResult
from gaia_eval.tasks.runner import TasksConfig

ID = "acme__widget-1"
EMPTY = "acme__widget-2"


@pytest.fixture
def mirror(tmp_path: Path) -> dict[str, Any]:
    return make_repo(tmp_path / "mirror")


@contextmanager
def _serve(rows: list[dict[str, Any]], seen: list[str]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlparse(self.path)
            q = parse_qs(url.query)
            seen.append(self.path)
            if url.path == "/filter":
                iid = q["where"][0].split("'")[1]
                hits = [r for r in rows if r["instance_id"] == iid]
            elif url.path == "/rows":
                off, n = int(q["offset"][0]), int(q["length"][0])
                hits = rows[off : off + n]
            else:
                self.send_error(404)
                return
            body = json.dumps(
                {
                    "rows": [
                        {"row_idx": i, "row": r, "truncated_cells": []} for i, r in enumerate(hits)
                    ],
                    "num_rows_total": len(rows) if url.path == "/rows" else len(hits),
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a: Any) -> None:
            pass

    with running(Handler) as server:
        yield url_of(server)


def test_rows_come_from_the_dataset_api_and_are_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mirror: dict[str, Any]
) -> None:
    recorded = row(mirror)
    seen: list[str] = []
    monkeypatch.setenv(swebench_data.SOURCE_ENV, "http")
    with _serve([recorded], seen) as url:
        monkeypatch.setenv(swebench_data.API_ENV, url)
        (got,) = swebench_data.load_rows([ID], tmp_path / "w")
    assert got == recorded
    assert seen and seen[0].startswith("/filter?") and "SWE-bench%2FSWE-bench_Verified" in seen[0]
    cached = tmp_path / "w" / "swebench" / f"{ID}.json"
    assert json.loads(cached.read_text()) == recorded  # the gold patch unaltered
    # Offline now: the cache alone serves it.
    monkeypatch.setenv(swebench_data.API_ENV, "http://127.0.0.1:9")
    assert swebench_data.load_rows([ID], tmp_path / "w") == [recorded]


def test_sample_is_seeded_over_every_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mirror: dict[str, Any]
) -> None:
    rows = [row(mirror, f"acme__widget-{n}") for n in range(1, 251)]
    monkeypatch.setenv(swebench_data.SOURCE_ENV, "http")
    with _serve(rows, []) as url:
        monkeypatch.setenv(swebench_data.API_ENV, url)
        a = swebench.select_ids(None, 5, 7, tmp_path / "w")
    b = swebench.select_ids(None, 5, 7, tmp_path / "w")  # from the cached id list
    c = swebench.select_ids(None, 5, 8, tmp_path / "w")
    assert a == b and len(a) == 5 and a != c
    assert len(json.loads((tmp_path / "w" / "swebench" / "_instance_ids.json").read_text())) == 250


def test_offline_without_cache_names_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(swebench_data.SOURCE_ENV, "http")
    monkeypatch.setenv(swebench_data.API_ENV, "http://127.0.0.1:9")
    with pytest.raises(InfrastructureError) as err:
        swebench_data.load_rows([ID], tmp_path / "w")
    text = str(err.value)
    assert ID in text and str(tmp_path / "w" / "swebench" / f"{ID}.json") in text
    assert "network" in text


def test_checkout_is_sealed_at_base(tmp_path: Path, mirror: dict[str, Any]) -> None:
    cache = tmp_path / "cache"
    bare = checkout.ensure_commit(cache, "acme/widget", str(mirror["repo"]), mirror["base"])
    assert bare == cache / "git-cache" / "acme+widget.git"
    # A cache fetched by commit never holds the fix.
    assert not checkout.has_commit(bare, mirror["fix"])
    project = checkout.checkout(
        bare, mirror["base"], tmp_path / "t" / "project", forbidden=[mirror["fix"]]
    )
    assert git(project, "rev-parse", "HEAD").strip() == mirror["base"]
    assert git(project, "remote").strip() == ""
    assert git(project, "for-each-ref").strip() == ""
    assert git(project, "fsck", "--unreachable", "--no-reflogs").strip() == ""
    every = git(project, "log", "--all", "--format=%H %s")
    assert mirror["fix"] not in every and "SECRET-FIX-MARKER" not in every
    assert (project / "widget" / "core.py").read_text().endswith("a - b\n")
    # A checkout that still reaches the fix is refused.
    leaky = tmp_path / "leaky"
    subprocess.run(["git", "clone", "-q", str(mirror["repo"]), str(leaky)], check=True)
    with pytest.raises(InfrastructureError, match="not sealed"):
        checkout.verify(leaky, git(leaky, "rev-parse", "HEAD").strip(), [mirror["fix"]])


def test_bad_row_values_never_reach_git(tmp_path: Path, mirror: dict[str, Any]) -> None:
    from gaia_eval.core.errors import InvalidInputError

    bad = {**row(mirror), "base_commit": "--upload-pack=touch /tmp/x"}
    with pytest.raises(InvalidInputError, match="base_commit"):
        swebench_data.validate_row(bad, "row")
    with pytest.raises(InvalidInputError, match="repository"):
        swebench_data.validate_row({**row(mirror), "repo": "-x/y"}, "row")


def test_bare_toolchain_is_first_and_rebuilt_when_dirty(tmp_path: Path) -> None:
    tool = swebench.toolchain(tmp_path)
    env = swebench.bare_env({"PATH": "/usr/bin:/bin"}, tool)
    assert env["PATH"].split(":")[0] == str(tool / "bin")
    probe = subprocess.run(
        ["python", "-c", "import sys; print(sys.prefix); import pip"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert probe.stdout.strip() == str(tool) and "No module named 'pip'" in probe.stderr
    (next(tool.glob("lib/python*/site-packages")) / "leak.py").write_text("x = 1\n")
    assert swebench.toolchain(tmp_path) == tool
    assert not list(tool.glob("lib/python*/site-packages/*"))


def _replay(tmp_path: Path) -> Path:
    script = {
        ID: [
            {
                "tool": "run_shell",
                "args": {
                    "command": "command -v python; python -c 'import pydantic' 2>&1 | tail -1"
                },
            },
            {
                "tool": "write_file",
                "args": {"path": "widget/core.py", "content": "def add(a, b):\n    return a + b\n"},
            },
            {
                "tool": "write_file",
                "args": {"path": "tests/test_new.py", "content": "def test_x():\n    pass\n"},
            },
            {"answer": "Fixed add."},
        ],
        EMPTY: [{"answer": "Nothing to do."}],
    }
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(script))
    return path


def _run_argv(tmp_path: Path, mirror: dict[str, Any], *extra: str) -> list[str]:
    work = tmp_path / "work"
    cache_row(work, row(mirror, ID))
    cache_row(work, row(mirror, EMPTY))
    return [
        "tasks",
        "run",
        "--suite",
        "swebench",
        "--instances",
        f"{ID},{EMPTY}",
        "--harness",
        "replay",
        "--replay",
        str(_replay(tmp_path)),
        "--model",
        "org/model",
        "--full-access",
        "--no-judge",
        "--git-mirror",
        str(mirror["repo"].parent),
        "--work-root",
        str(work),
        *extra,
    ]


def test_run_writes_predictions_and_fails_an_empty_patch(
    tmp_path: Path, mirror: dict[str, Any]
) -> None:
    out = tmp_path / "run"
    assert main([*_run_argv(tmp_path, mirror), "--no-evaluate", "--out", str(out)]) == 0
    preds = [json.loads(ln) for ln in (out / "predictions.jsonl").read_text().splitlines()]
    assert [p["instance_id"] for p in preds] == [ID, EMPTY]
    assert {p["model_name_or_path"] for p in preds} == {"replay-org__model"}
    patch = preds[0]["model_patch"]
    assert "diff --git a/widget/core.py" in patch and "+    return a + b" in patch
    assert "new file mode" in patch and "tests/test_new.py" in patch
    assert preds[1]["model_patch"] == ""
    env = load_envelope(out / "results.json", suite="tasks")
    res = {r.id: TaskResult.model_validate(r.result) for r in env.items}
    assert res[ID].passed is None and res[ID].why == "awaiting the SWE-bench harness"
    assert res[EMPTY].passed is False and "empty patch" in res[EMPTY].why
    assert env.header.tier == "swebench"
    assert env.header.settings["docker_platform"] == "linux/amd64"
    assert "AWAITING HARNESS" in (out / "report.md").read_text()
    tr = Transcript.model_validate_json((out / ID / "transcript.json").read_text())
    assert tr.prompt.endswith(swebench.PARAGRAPH) and "add(2, 2) returns 0" in tr.prompt
    shell = tr.outcome.tool_calls[0].result
    # The agent's python is the bare venv, which cannot import our packages.
    assert str(tmp_path / "work" / "swebench" / "toolchain" / "bin" / "python") in shell
    assert "No module named 'pydantic'" in shell
    # The gold patch never reaches the results folder.
    for p in out.rglob("*"):
        if p.is_file():
            assert "SECRET-FIX-MARKER" not in p.read_text(errors="replace"), p


def test_grading_needs_swebench_and_docker_before_anything_runs(
    tmp_path: Path,
    mirror: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))  # no docker
    out = tmp_path / "run"
    assert main([*_run_argv(tmp_path, mirror), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "pip install swebench" in err and "Docker" in err and "--no-evaluate" in err
    assert not out.exists()


def test_swebench_flags_need_the_swebench_suite(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["tasks", "run", "--harness", "replay", "--replay", "reference", "--no-judge"]
    assert main([*argv, "--instances", ID]) == 2
    assert "--instances is valid only with --suite swebench" in capsys.readouterr().err


def test_code_retrieval_and_tasks_share_one_bare_cache(tmp_path: Path) -> None:
    """A tasks run fills `<work root>/git-cache/` shallow; code retrieval on the same work
    root completes and uses it (and a full cache made first still gives a sealed checkout)."""
    from gaia_eval.code_retrieval.repos import Repos

    info = make_repo(tmp_path / "mirror")
    shared = tmp_path / "work"
    bare = checkout.ensure_commit(shared, "acme/widget", str(info["repo"]), info["base"], depth=1)
    assert (bare / "shallow").exists() and not checkout.has_commit(bare, info["c1"])
    repos = Repos(
        tmp_path / "scratch", url_template=str(tmp_path / "mirror" / "{repo}"), cache_root=shared
    )
    # {repo} is acme/widget; the mirror folder is acme+widget.
    (tmp_path / "mirror" / "acme").mkdir()
    (tmp_path / "mirror" / "acme" / "widget").symlink_to(info["repo"])
    assert repos.source("acme/widget") == str(bare)  # the same cache, not a second clone
    tree = repos.checkout("acme/widget", info["c1"])  # needs history the tasks run lacked
    assert (tree / "widget" / "core.py").exists() and not (bare / "shallow").exists()
    # Now full (it holds the fix): a task's checkout from it is still sealed at its base.
    assert checkout.has_commit(bare, info["fix"])
    project = checkout.checkout(bare, info["base"], tmp_path / "t" / "p", forbidden=[info["fix"]])
    assert info["fix"] not in git(project, "log", "--all", "--format=%H")


def test_fence_extras_hide_the_installed_package_and_caches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a SWE-bench task the fence also hides the host's copy of the package under test
    (found where this interpreter would import it from) and the shared work root; for
    claude-code every host site-packages tree too; the bare toolchain stays."""
    site = tmp_path / "site"
    (site / "widget").mkdir(parents=True)
    (site / "widget" / "__init__.py").write_text("FIXED = True\n")
    monkeypatch.syspath_prepend(str(site))
    cfg = TasksConfig(suite="swebench", tasks=[], harness=None, model="m", work_root=tmp_path / "w")  # type: ignore[arg-type]
    task = swebench.task_for(
        {
            "instance_id": ID,
            "repo": "acme/widget",
            "base_commit": "a" * 40,
            "problem_statement": "x",
        }
    )
    extra = swebench.SwebenchKind().fence(cfg, task, "builtin")
    assert site / "widget" in extra.hide and tmp_path / "w" in extra.hide
    assert list(extra.keep_ro) == [tmp_path / "w" / "swebench" / "toolchain"]
    cc = swebench.SwebenchKind().fence(cfg, task, "claude-code")
    assert set(swebench.host_site_packages()) <= set(cc.hide)


def test_judge_later_grades_quality_against_the_gold_patch_only(
    tmp_path: Path, mirror: dict[str, Any]
) -> None:
    from tasks_fakes import FakeLLM, serve
    from test_tasks_therock import _grader

    out = tmp_path / "run"
    assert main([*_run_argv(tmp_path, mirror), "--no-evaluate", "--out", str(out)]) == 0
    fake = FakeLLM([_grader])
    with serve(fake) as url:
        assert main(["tasks", "judge", str(out), "--judge-model", f"openai:{url}/v1#j"]) == 0
    (request,) = fake.requests
    prompt = request["messages"][-1]["content"]
    # The gold patch is read from the row cache in the judge step and shown as one answer.
    assert "+    return a + b" in prompt
    assert "ONE correct answer, not the only one" in prompt
    env = load_envelope(out / "results.json", suite="tasks")
    res = {r.id: TaskResult.model_validate(r.result) for r in env.items}
    assert res[ID].judge is not None and res[ID].judge.solves_problem is True
    assert res[ID].passed is None  # the judge never decides a SWE-bench pass
    assert res[EMPTY].passed is False


def test_checkout_depth_does_not_depend_on_what_filled_the_cache(
    tmp_path: Path, mirror: dict[str, Any]
) -> None:
    """A cache left shallower by an earlier task is deepened, so every task's checkout
    shows the same history whatever ran before it."""
    cache, url = tmp_path / "cache", str(mirror["repo"])
    bare = checkout.ensure_commit(cache, "acme/widget", url, mirror["base"], depth=1)
    assert git(bare, "rev-list", "--count", mirror["base"]).strip() == "1"
    checkout.ensure_commit(cache, "acme/widget", url, mirror["base"], depth=2)
    project = checkout.checkout(bare, mirror["base"], tmp_path / "p", depth=2)
    assert git(project, "rev-list", "--count", "HEAD").strip() == "2"
