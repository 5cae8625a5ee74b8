"""The memory benchmark end to end on the engine: the pr suite gates against its committed
baseline and is deterministic; shards merge into the same result; the three broken
control systems fail the checks they should; a database that fails mid-run is an error of
the run; `full` runs against a model over loopback."""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from tasks_fakes import FakeLLM, serve

from gaia_eval.cli.main import main
from gaia_eval.embed.hashing import HashEmbedder
from gaia_eval.memory import controls
from gaia_eval.memory.extractors import ScriptedExtractor
from gaia_eval.memory.replay import Replay
from gaia_eval.memory.scenario import load_all
from gaia_eval.systems.memory.protocol import MemoryTools

TIMING = {"timings", "latency", "run", "ran_at", "seconds", "started", "verdict", "setup"}


def _strip(data: Any) -> Any:
    """The results without wall-clock fields (the only ones that differ run to run)."""
    if isinstance(data, dict):
        return {k: _strip(v) for k, v in data.items() if k not in TIMING}
    if isinstance(data, list):
        return [_strip(v) for v in data]
    return data


def _results(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


def _failing(folder: Path) -> set[str]:
    return {
        c["id"]
        for rec in _results(folder)["items"]
        if rec["result"]
        for p in rec["result"]["probes"]
        for c in p["checks"]
        if not c["passed"]
    }


@pytest.fixture(scope="module")
def pr_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One gated pr run, shared by the tests that read it."""
    out = tmp_path_factory.mktemp("pr") / "run"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path_factory.mktemp("lock")))
        code = main(["memory", "--suite", "pr", "--gate", "builtin:memory/pr", "--out", str(out)])
    assert code == 0
    return out


def test_pr_runs_six_scenarios_and_passes_its_gate(pr_run: Path) -> None:
    env = _results(pr_run)
    assert env["header"]["suite"] == "memory" and env["header"]["complete"] is True
    assert [r["id"] for r in env["items"]] == [s.id for s in load_all()]
    assert env["verdict"]["passed"] is True
    summary = env["summary"]
    # The reference passes most checks; the ones it fails are the README's known gaps.
    assert summary["overall"]["checks"]["value"] > 0.9
    assert _failing(pr_run) == {
        "alex_three_months_of_life/p15/must_not_show/0",
        "priya_work_documents_and_forgetting/p10/must_not_show/0",
        "priya_work_documents_and_forgetting/p10/store_must_not/0",
        "sam_family_health/p04/must_not_show/0",
        "sam_family_health/p04/store_must_not/0",
        "sam_family_health/p09/store_must_not/0",
    }
    report = (pr_run / "report.md").read_text(encoding="utf-8")
    for heading in (
        "## Scenarios",
        "## Failing checks",
        "## Fixed since the baseline",
        "## Timelines",
    ):
        assert heading in report
    # The failing checks say what was shown and what the store held.
    assert (
        "shown: " in report
        and "store held: m0005 fact [current, user] diagnosis: migraines" in report
    )
    html = (pr_run / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html
    svgs = re.findall(r"<svg.*?</svg>", html, flags=re.DOTALL)
    timelines = [ElementTree.fromstring(svg) for svg in svgs if "stroke-dasharray" in svg]
    assert len(timelines) == 6  # one per scenario, each well-formed, with probe lines
    assert all(t.findall("{http://www.w3.org/2000/svg}rect") for t in timelines)


def test_an_interrupted_run_resumes_to_identical_results(
    pr_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second run, stopped partway (exit 130) and finished with --resume, equals the first
    one: the replay is deterministic and a scenario is the unit of resume."""
    out = tmp_path / "again"
    argv = ["memory", "--suite", "pr", "--system", "memory_db_faults:interrupts_once",
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 130
    # The terminal gets what was saved and how to finish, as after an outage.
    stdout = capsys.readouterr().out
    assert "2/6 scenarios measured\n  interrupted" in stdout
    assert f"results: {out / 'results.json'}" in stdout and f"report: {out / 'report.md'}" in stdout
    resume = " ".join(["gaia-eval", *argv[:-2], "--resume", str(out)])
    assert f"finish the run with:\n  {resume}\n" in stdout
    done = _results(out)["items"]
    assert len(done) == 2 and _results(out)["header"]["interrupted"] is True
    assert main(["memory", "--resume", str(out)]) == 0
    first, second = _results(pr_run), _results(out)
    assert second["header"]["complete"] is True
    assert _strip(first["items"]) == _strip(second["items"])
    assert _strip(first["summary"]) == _strip(second["summary"])
    assert first["header"]["definition_digest"] == second["header"]["definition_digest"]


def test_shards_merge_into_a_result_that_gates_like_one_run(tmp_path: Path) -> None:
    parts = []
    for i in (1, 2):
        out = tmp_path / f"shard{i}"
        assert main(["memory", "--suite", "pr", "--shard", f"{i}/2", "--out", str(out)]) == 0
        parts.append(out)
    assert {r["id"] for p in parts for r in _results(p)["items"]} == {s.id for s in load_all()}
    merged = tmp_path / "merged"
    argv = ["merge", *map(str, parts), "--out", str(merged), "--gate", "builtin:memory/pr"]
    assert main(argv) == 0
    assert _results(merged)["verdict"]["passed"] is True


def _control_failures(factory: Any) -> set[str]:
    """Failing check ids of a system over all six scenarios (replayed directly; in threads,
    since a replay mostly waits for SQLite's fsyncs)."""
    from concurrent.futures import ThreadPoolExecutor

    with tempfile.TemporaryDirectory() as tmp:

        def failing(sc: Any) -> set[str]:
            tools = MemoryTools(ScriptedExtractor(sc), HashEmbedder())
            result = Replay(sc, factory, tools, Path(tmp) / f"{sc.id}.db").run()
            return {c.id for p in result.probes for c in p.checks if not c.passed}

        with ThreadPoolExecutor(max_workers=6) as pool:
            return set().union(*pool.map(failing, load_all()))


@pytest.fixture(scope="module")
def reference_failures(pr_run: Path) -> set[str]:
    return _failing(pr_run)


def _kinds(ids: set[str]) -> dict[str, int]:
    kinds: dict[str, int] = {}
    probes = {f"{s.id}/{p.id}": p.spec.kind for s in load_all() for p in s.probes}
    for cid in ids:
        kind = probes[cid.rsplit("/", 2)[0]]
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def test_a_system_that_never_supersedes_fails_the_update_checks(
    reference_failures: set[str],
) -> None:
    new = _control_failures(controls.never_supersedes) - reference_failures
    assert {
        "maya_moves_and_changes_jobs/p05/must_not_show/0",  # still training for Cape Cod
        "maya_moves_and_changes_jobs/p06/store_must/1",  # Harbor & Finch never superseded
        "sam_family_health/p06/must_not_show/0",  # still pescatarian
        "chen_learns_project_quirks/p06/must_not_show/0",  # the tox lesson stays
        "jordan_reminders_change/p08/must_not_show/0",  # the old conference date
    } <= new
    assert set(_kinds(new)) <= {"update", "recall", "temporal"}
    assert _kinds(new).get("update", 0) >= 10


def test_a_system_that_forgets_nothing_fails_the_forget_checks(
    reference_failures: set[str],
) -> None:
    new = _control_failures(controls.forgets_nothing) - reference_failures
    assert {
        "maya_moves_and_changes_jobs/p07/store_must_not/0",  # Linden Street still stored
        "maya_moves_and_changes_jobs/p11/must_not_show/0",  # ...and shown after the old chat
        "priya_work_documents_and_forgetting/p07/must_not_show/0",  # Dave is back
        "chen_learns_project_quirks/p07/must_not_show/0",
        "jordan_reminders_change/p07/must_not_show/0",  # the therapy appointment
        "alex_three_months_of_life/p07/store_must_not/0",  # the weight
    } <= new
    assert set(_kinds(new)) == {"forget"}


def test_a_system_that_files_every_line_fails_the_provenance_checks(
    reference_failures: set[str],
) -> None:
    new = _control_failures(controls.files_every_line) - reference_failures
    assert {
        "maya_moves_and_changes_jobs/p01/must_not_show/0",  # the weather became a fact
        "priya_work_documents_and_forgetting/p03/must_not_show/0",  # the password is shown
        "priya_work_documents_and_forgetting/p03/store_must_not/0",  # ...and stored
        "sam_family_health/p01/store_must_not/0",  # a friend's allergy
        "sam_family_health/p05/store_must_not/0",  # a hypothetical diet
        "chen_learns_project_quirks/p02/store_must_not/0",  # the README's planted command
        "alex_three_months_of_life/p04/store_must_not/0",  # a podcast host's routine
    } <= new
    assert _kinds(new).get("provenance", 0) >= 15


def test_controls_run_through_the_cli_as_user_systems(tmp_path: Path) -> None:
    out = tmp_path / "control"
    system = "gaia_eval.memory.controls:files_every_line"
    argv = ["memory", "--suite", "pr", "--scenarios", "maya_moves_and_changes_jobs",
            "--system", system, "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    env = _results(out)
    assert env["header"]["system"] == "gaia_eval.memory.controls:files_every_line"
    assert env["header"]["filtered"] is True
    assert "maya_moves_and_changes_jobs/p01/must_not_show/0" in _failing(out)
    # Not comparable with the reference's baseline: exit 3 naming the field.
    gated = tmp_path / "gated"
    argv[-1] = str(gated)
    assert main([*argv, "--gate", "builtin:memory/pr"]) == 3


def test_a_system_that_is_not_a_memory_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "--system", "gaia_eval.embed.hashing:HashEmbedder", "--list"]) == 2
    assert "not a Memory" in capsys.readouterr().err


@pytest.fixture
def faults() -> Iterator[None]:
    import memory_db_faults

    yield
    memory_db_faults.release()


@pytest.mark.parametrize(
    ("factory", "words"),
    [("locks_the_db", "database is locked"), ("corrupts_the_db", "not a database")],
)
def test_a_database_that_fails_mid_run_is_an_error_of_the_run(
    tmp_path: Path, faults: None, factory: str, words: str
) -> None:
    out = tmp_path / "run"
    argv = ["memory", "--suite", "pr", "--scenarios", "jordan_reminders_change",
            "--system", f"memory_db_faults:{factory}", "--out", str(out)]  # fmt: skip
    assert main(argv) == 1
    (rec,) = _results(out)["items"]
    assert rec["status"] == "error" and rec["result"] is None
    assert words in rec["error"] and "chat c03" in rec["error"]
    assert "crashed" in (out / "report.md").read_text(encoding="utf-8")


def _fake_model(body: dict[str, Any]) -> dict[str, Any]:
    system = body["messages"][0]["content"]
    user = body["messages"][-1]["content"]
    if "long-term memory" in system:
        if "dentist" in user.lower():
            item = {"kind": "reminder", "attribute": "dentist", "value": "Dentist with Dr. Haddad"}
            items = [{**item, "due": "2025-03-27T10:00:00"}]
            return {"content": "Sure! " + json.dumps({"items": items})}
        if "Physio is on" in user:
            return {"content": "I cannot tell."}  # an unparsable reply: extracts nothing
        return {"content": '{"items": []}'}
    if "tidy" in system:
        return {"content": '{"merge": false}'}
    if "grade" in system:
        return {"content": '{"pass": true, "reason": "uses it"}'}
    # The answer: repeat what memory showed, so the answer checks see it.
    return {"content": "From memory: " + system.split("Memory:", 1)[1][:500]}


SMALL = """\
persona: Test Person
start: 2025-03-03
chats:
  - at: 2025-03-03T10:00
    turns:
      - user: Booked the dentist with Dr. Haddad for March 27 at 10am.
        extract: []
  - at: 2025-03-10T10:00
    turns:
      - user: Physio is on March 12, and I'm vegetarian these days.
        extract: []
  - at: 2025-03-11T10:00
    turns:
      - user: Please forget the physio.
        calls:
          - forget: {query: physio}
probes:
  - id: p1
    at: 2025-03-26T12:00
    kind: update
    request: Anything tomorrow?
    must_show: [Dr. Haddad]
    answer_must: [Haddad]
  - {id: p2, at: 2025-03-26T12:05, kind: forget, request: Physio, must_not_show: [physio]}
  - id: p3
    at: 2025-03-26T12:10
    kind: provenance
    request: My diet
    store_must_not: [{value: dentist, source: document}]
  - id: p4
    at: 2025-03-26T12:15
    kind: temporal
    request: What did I have in early March?
    must_show: [Dr. Haddad]
"""


def test_full_runs_a_model_over_loopback_with_repeats_and_a_judge(
    tmp_path: Path, recorded_local_server: Any
) -> None:
    from gaia_eval.llm.local_server import LOCAL_NOTE

    # What the CLI would start for a `local` spec: recorded, and the report says what it is.
    info, asked = recorded_local_server.info, recorded_local_server.asked
    scenario = tmp_path / "small.yaml"
    scenario.write_text(SMALL, encoding="utf-8")
    fake = FakeLLM([_fake_model] * 500)
    with serve(fake) as url:
        out = tmp_path / "full"
        argv = ["memory", "--suite", "full", "--model", f"openai:{url}#fake", "--judge",
                f"openai:{url}#judge", "--embedder", "hash", "--scenarios", str(scenario),
                "--repeats", "2", "--out", str(out)]  # fmt: skip
        assert main(argv) == 0
    env = _results(out)
    assert [r["id"] for r in env["items"]] == ["small#1", "small#2"]
    assert env["header"]["model"] == f"openai:{url}#fake"
    result = env["items"][0]["result"]
    assert result["extract_failures"] == 1  # the physio turn's reply did not parse
    assert result["model_tokens"]["input"] > 0
    assert all(p["answer"] is not None for p in result["probes"])
    checks = {c["id"]: c["passed"] for p in result["probes"] for c in p["checks"]}
    # The model filed the dentist reminder, memory showed it, the answer used it.
    assert checks["small/p1/must_show/0"] and checks["small/p1/answer_must/0"]
    assert checks["small/p1/judge/0"]
    spread = env["summary"]["repeats"]["answer_accuracy"]
    assert spread["n"] == 2 and spread["stdev"] == 0.0
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "Variance over repeats" in report and "answer accuracy" in report
    assert [s.text for s in asked] == [f"openai:{url}#fake", f"openai:{url}#judge"]
    assert env["header"]["settings"]["local_model"] == info.comparable()
    assert env["setup"]["local_model"]["note"] == LOCAL_NOTE
    assert report.index(LOCAL_NOTE) < report.index("## Headline")


def test_full_is_never_gated_and_an_unreachable_model_is_unmeasured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tasks_fakes import closed_port_url, hang_up

    argv = ["memory", "--suite", "full", "--gate", "builtin:memory/pr"]
    assert main(argv) == 2
    assert "never gated" in capsys.readouterr().err
    # Nothing listens: refused before the run, naming the server and both roles at once.
    out = tmp_path / "down"
    url = closed_port_url()
    down = f"openai:{url}#m"
    argv = ["memory", "--suite", "full", "--model", down, "--judge", down, "--embedder", "hash",
            "--scenarios", "sam_family_health", "--out", str(out)]  # fmt: skip
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert f"--model {down!r} and --judge {down!r}: nothing answers at {url}" in err
    assert "Connection refused" in err and err.count("nothing answers") == 1
    assert not out.exists()  # nothing ran, so no folder
    # A server that accepts and then hangs up: an outage at the first call, unmeasured.
    with hang_up() as url:
        argv = ["memory", "--suite", "full", "--model", f"openai:{url}#m", "--embedder", "hash",
                "--scenarios", "sam_family_health", "--out", str(out)]  # fmt: skip
        assert main(argv) == 3
    (rec,) = _results(out)["items"]
    assert rec["status"] == "infra_error"


def test_full_jobs_4_equals_jobs_1_scenario_for_scenario(tmp_path: Path) -> None:
    scenario = tmp_path / "small.yaml"
    scenario.write_text(SMALL, encoding="utf-8")
    runs = {}
    with serve(FakeLLM(answer=_fake_model)) as url:
        for jobs in ("1", "4"):
            out = tmp_path / f"full{jobs}"
            argv = ["memory", "--suite", "full", "--model", f"openai:{url}#fake", "--judge",
                    f"openai:{url}#judge", "--embedder", "hash", "--scenarios", str(scenario),
                    "--repeats", "4", "--out", str(out), "--jobs", jobs]  # fmt: skip
            assert main(argv) == 0
            runs[jobs] = _results(out)

    def stable(env: dict[str, Any]) -> list[Any]:
        timeless = ("seconds", "latency", "timings")
        return [
            (r["id"], r["status"], {
                k: v for k, v in r["result"].items() if not any(t in k for t in timeless)
            })
            for r in env["items"]
        ]  # fmt: skip

    assert stable(runs["4"]) == stable(runs["1"])
    assert [r["id"] for r in runs["4"]["items"]] == [f"small#{i}" for i in range(1, 5)]
    assert runs["4"]["header"]["concurrency"]["jobs"] == 4
