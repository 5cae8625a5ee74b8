"""The engine names no suite: reading one suite's results file imports no other suite, and
what the suites register (converters, descriptions, gate commands) is read from the registry."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gaia_eval.core import baselines
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results import load_envelope
from gaia_eval.core.suite import gate_commands, legacy_converters

RAG_BASELINE = baselines.root() / "retrieval" / "pr.json"
OTHERS = ("gaia_eval.code_retrieval", "gaia_eval.tasks", "gaia_eval.code_bench", "gaia_eval.agents")

_READ = """
import json, sys
from gaia_eval.core.results import load_envelope
from gaia_eval.core.suite import legacy_converters
env = load_envelope(sys.argv[1], suite=None if sys.argv[2] == "-" else sys.argv[2],
                    legacy=legacy_converters())
print(json.dumps({"suite": env.header.suite, "modules": sorted(sys.modules)}))
"""


def _read_in_child(path: Path, suite: str | None) -> dict[str, object]:
    argv = [sys.executable, "-c", _READ, str(path), suite or "-"]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    out: dict[str, object] = json.loads(done.stdout)
    return out


@pytest.mark.parametrize("suite", ["retrieval-rag", None])
def test_reading_a_rag_file_imports_no_other_suite(tmp_path: Path, suite: str | None) -> None:
    # The committed baseline is a pre-envelope file (its converter runs); the envelope it
    # converts to is read with no suite named (as `merge` does).
    envelope = tmp_path / "results.json"
    env = load_envelope(RAG_BASELINE, suite="retrieval-rag", legacy=legacy_converters())
    envelope.write_text(env.model_dump_json(by_alias=True), encoding="utf-8")
    path = RAG_BASELINE if suite else envelope
    seen = _read_in_child(path, suite)
    assert seen["suite"] == "retrieval-rag"
    modules = seen["modules"]
    assert isinstance(modules, list)
    loaded = [m for m in modules if m.startswith(OTHERS)]
    assert loaded == []
    # The converter that ran is the RAG suite's own, and only when the file needed it.
    assert ("gaia_eval.retrieval.legacy" in modules) == (suite is not None)


def test_a_foreign_file_is_named_by_the_suite_that_had_it(tmp_path: Path) -> None:
    scorecard = tmp_path / "scorecard.json"
    scorecard.write_text('{"tasks": [], "harness": "replay"}', encoding="utf-8")
    with pytest.raises(InvalidInputError, match="this is a tasks scorecard, not a memory"):
        load_envelope(scorecard, suite="memory", legacy=legacy_converters())
    other = tmp_path / "other.json"
    other.write_text('{"zebra": 1}', encoding="utf-8")
    with pytest.raises(InvalidInputError, match="a JSON object with keys zebra"):
        load_envelope(other, legacy=legacy_converters())


def test_every_shipped_baseline_folder_has_its_gate_command() -> None:
    folders = {b.suite for b in baselines.available()}
    commands = gate_commands()
    assert folders <= set(commands)
    assert commands["retrieval"] == "gaia-eval retrieval --component rag --gate"
