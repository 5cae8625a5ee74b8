"""`gaia-eval run SUITE`: every registered suite answers --help; the command line a run
records (generated from the suite's options) parses back to the same settings; and
`run memory --tier pr` is `memory --suite pr` under a new name."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from test_memory_suite import _strip

from gaia_eval.cli import _alias
from gaia_eval.cli.main import main
from gaia_eval.core.options import SuiteCommand
from gaia_eval.core.suite import suites

REGISTERED = sorted(n for n, e in suites().items() if not e.target.startswith("engine_toy"))


def _command(name: str) -> SuiteCommand | None:
    module = _alias.options_module(suites()[name])
    return _alias.command(module, name) if module else None


OPTIONED = [n for n in REGISTERED if _command(n) is not None]

# Per suite, a command line setting most of its own flags (after the suite's words).
SAMPLES: dict[str, list[str]] = {
    "memory": ["--tier", "full", "--scenarios", "a,b", "--model", "local", "--judge", "j",
               "--repeats", "3", "--embedder", "hash", "--out", "o", "--shard", "1/2"],
    "code-retrieval": ["--suite", "offline", "--parts", "quality", "scale", "--work-root", "w",
                       "--offline", "--no-cache", "--gate", "builtin:x/y", "--tolerance", "0.5",
                       "--keep-temp"],
    "code": ["--harness", "replay", "--replay", "reference", "--tasks", "a,b", "--tries", "2",
             "--repeats", "2", "--run-timeout", "5", "--fence", "--price", "1,2",
             "--keep-workdirs", "--resume", "r"],
    "tasks": ["--suite", "full", "--tasks", "a,b", "--harness", "replay", "--replay", "r.json",
              "--repeats", "2", "--run-timeout", "77.0", "--work-root", "w", "--fence",
              "--no-judge", "--price", "1,2", "--instances", "x", "--keep-images",
              "--git-mirror", "m", "--meter", "fireworks", "--judge-attempts", "3"],
    "retrieval-rag": ["--tier", "full", "--dataset", "a.json", "--dataset", "b.json", "--beir",
                      "bd", "--beir-split", "dev", "--allow-outside", "--embedder", "hash",
                      "--no-hard-cases", "--model", "--judge", "j", "--no-vlm", "--no-cache",
                      "--offline", "--datasets", "xquad", "--financebench-docs", "3",
                      "--scale-tiers", "10,30", "--ann-from", "30", "--distractors",
                      "generated", "--tolerance", "0.1", "--keep-temp"],
    "agent": ["--tier", "full", "--scenarios-dir", "d", "--category", "a,b", "--model", "m",
              "--agent-tools", "pipeline", "--embedder", "onnx:x", "--max-tokens", "64",
              "--driver-model", "d", "--price", "1,2", "--agent-model", "am", "--repeats", "2",
              "--budget", "1.5", "--timeout", "60", "--timeout-cap", "600", "--out", "o"],
    "sessions": ["--claude-dir", "c", "--project", "p", "--limit", "3", "--focus", "code",
                 "--harness", "replay", "--replay", "reference", "--judge-model", "local",
                 "--repeats", "2", "--run-timeout", "30", "--gate", "g"],
    "sessions-controls": ["--judge-model", "local", "--out", "o"],
    "benchmark": ["--model", "local", "--workload", "triage", "--rate", "0.5,1", "--arrivals",
                  "constant", "--duration", "5", "--max-tokens", "8", "--input-words", "16",
                  "--ignore-eos", "--warmup", "0", "--repeats", "2", "--timeout", "30",
                  "--max-error-rate", "0.2", "--tokenizer", "t.json", "--gate", "m.yaml"],
    "tasks-controls": ["--judge-model", "openai:http://127.0.0.1:1/v1#j", "--work-root", "w",
                       "--out", "o", "--keep-temp"],
}  # fmt: skip


def test_every_registered_suite_runs_under_run() -> None:
    assert {"memory", "code-retrieval", "code", "tasks", "retrieval-rag", "agent"} <= set(
        REGISTERED
    )
    assert set(OPTIONED) == set(REGISTERED), "every suite's flags are in its options.py"
    assert set(SAMPLES) == set(OPTIONED), "give every suite with options a sample"


@pytest.mark.parametrize("name", REGISTERED)
def test_run_suite_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["run", name, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: gaia-eval"), out[:200]
    assert "--out" in out and "--resume" in out  # the shared run flags
    assert out.startswith(f"usage: gaia-eval run {name}")


def _parse(cmd: SuiteCommand, argv: list[str]) -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    cmd.add_to(parser)
    return vars(parser.parse_args(argv))


@pytest.mark.parametrize("name", OPTIONED)
@pytest.mark.parametrize("head", ["run", "alias"])
def test_recorded_argv_parses_back_to_the_same_settings(name: str, head: str) -> None:
    cmd = _command(name)
    assert cmd is not None
    first = _parse(cmd, SAMPLES[name])
    ns = argparse.Namespace(**first, _head=("run", name) if head == "run" else None)
    words = cmd.argv(ns)
    prefix = ["run", name] if head == "run" else list(cmd.alias)
    assert words[: len(prefix)] == prefix
    rest = words[len(prefix) :]
    assert _parse(cmd, rest) == first
    # No flag is left out: each sample flag given comes back (the tier always does).
    given = {w for w in SAMPLES[name] if w.startswith("--")} - {"--suite", "--tier"}
    assert given <= set(rest)
    if any(o.aliases == ("--suite",) for o in cmd.options):  # as the command spells it
        assert ("--tier" if head == "run" else "--suite") in rest


@pytest.mark.parametrize("name", OPTIONED)
def test_defaults_round_trip(name: str) -> None:
    cmd = _command(name)
    assert cmd is not None
    first = _parse(cmd, [])
    assert _parse(cmd, cmd.argv(argparse.Namespace(**first))[len(cmd.alias) :]) == first


def test_run_memory_is_the_memory_command(tmp_path: Path) -> None:
    new, old = tmp_path / "new", tmp_path / "old"
    gate = ["--gate", "builtin:memory/pr"]
    assert main(["run", "memory", "--tier", "pr", *gate, "--out", str(new)]) == 0
    assert main(["memory", "--suite", "pr", *gate, "--out", str(old)]) == 0
    a, b = (json.loads((d / "results.json").read_text(encoding="utf-8")) for d in (new, old))
    assert _strip(a["items"]) == _strip(b["items"])
    assert _strip(a["summary"]) == _strip(b["summary"])
    assert a["verdict"]["passed"] and b["verdict"]["passed"]
    assert a["header"]["run"]["argv"][:4] == ["run", "memory", "--tier", "pr"]
    assert b["header"]["run"]["argv"][:3] == ["memory", "--suite", "pr"]
    # Either spelling resumes the other's run (a finished run: nothing left to do).
    assert main(["memory", "--resume", str(new)]) == 0
    assert main(["run", "memory", "--resume", str(old)]) == 0


def test_a_suite_of_one_file_runs_under_run(tmp_path: Path) -> None:
    """tests/engine_toy.py, registered at import, is `gaia-eval run toy` with its options."""
    import engine_toy  # noqa: F401  (registers the toy)

    items = tmp_path / "items.json"
    items.write_text(json.dumps({"a": {"value": 0.7}, "b": {"value": 0.9}}), encoding="utf-8")
    out = tmp_path / "run"
    assert main(["run", "toy", str(items), "--tier", "t2", "--knob", "b", "--out", str(out)]) == 0
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert data["header"]["tier"] == "t2"
    assert data["header"]["run"]["argv"] == [
        "run", "toy", str(items), "--tier", "t2", "--knob", "b", "--out", str(out),
    ]  # fmt: skip
    assert main(["run", "toy", "--resume", str(out)]) == 0  # nothing left: exit 0
