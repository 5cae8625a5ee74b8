"""`gaia-eval retrieval --component rag|code ...` is a thin alias generated from the suites'
options: one argparse pass, the same namespace as `gaia-eval run SUITE`, and the older
command lines (the docs', CI's, a recorded run's) still parse and run as they did."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from gaia_eval.cli.main import build_parser
from gaia_eval.code_retrieval.options import COMMAND as CODE
from gaia_eval.retrieval.options import COMMAND as RAG

# What only the command words set: the rest must be equal between the two spellings.
_COMMAND_KEYS = {"command", "component", "component_name", "suite_name", "_run", "_head"}


def _parse(argv: list[str]) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def _flags(ns: argparse.Namespace) -> dict[str, object]:
    return {k: v for k, v in vars(ns).items() if k not in _COMMAND_KEYS}


@pytest.mark.parametrize(
    ("old", "new", "cmd"),
    [
        (
            ["retrieval", "--component", "rag", "--suite", "pr", "--embedder", "hash",
             "--no-hard-cases", "--out", "o", "--shard", "1/2"],
            ["run", "retrieval-rag", "--tier", "pr", "--embedder", "hash",
             "--no-hard-cases", "--out", "o", "--shard", "1/2"],
            RAG,
        ),
        (
            ["retrieval", "--component", "rag", "--dataset", "d.json", "--retrieval-only"],
            ["run", "retrieval-rag", "--dataset", "d.json", "--retrieval-only"],
            RAG,
        ),
        (
            ["retrieval", "--component", "code", "--suite", "offline", "--parts", "quality",
             "--gate", "builtin:code-retrieval/offline"],
            ["run", "code-retrieval", "--tier", "offline", "--parts", "quality",
             "--gate", "builtin:code-retrieval/offline"],
            CODE,
        ),
    ],
)  # fmt: skip
def test_an_old_command_line_parses_as_run_suite(
    old: list[str], new: list[str], cmd: object
) -> None:
    before, after = _parse(old), _parse(new)
    assert _flags(before) == _flags(after)
    # Its runner runs that suite's command (the closure holds the SuiteCommand).
    (cell,) = before._run.__closure__
    assert cell.cell_contents is cmd
    # The recorded command line keeps the older spelling and parses back to the same run.
    recorded = cmd.argv(before)  # type: ignore[attr-defined]
    assert recorded[:3] == old[:3]
    assert _flags(_parse(recorded)) == _flags(before)


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gaia_eval", *argv],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_the_alias_lists_its_components_and_their_flags() -> None:
    top = _cli("retrieval", "--help")
    assert top.returncode == 0, top.stderr
    assert "usage: gaia-eval retrieval --component {code,rag} [flags]" in top.stdout
    assert "Code retrieval:" in top.stdout and "Document retrieval (RAG):" in top.stdout
    rag = _cli("retrieval", "--component", "rag", "--suite", "pr", "--help")
    assert rag.returncode == 0, rag.stderr
    assert rag.stdout.startswith("usage: gaia-eval retrieval --component rag ")
    assert "--dataset FILE" in rag.stdout


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["retrieval"], "required: --component"),
        (["retrieval", "--component", "bogus"], "invalid choice: 'bogus'"),
        (["retrieval", "rag", "--suite", "pr"], "required: --component"),
        (["retrieval", "--component", "rag", "--suite", "nightly"], "invalid choice: 'nightly'"),
    ],
)
def test_a_wrong_alias_line_is_exit_2_naming_the_fix(argv: list[str], said: str) -> None:
    proc = _cli(*argv)
    assert proc.returncode == 2, proc.stderr
    assert said in proc.stderr


def test_the_old_command_line_runs_a_rag_suite(tmp_path: Path) -> None:
    """The docs' spelling runs end to end in a real process and records itself as typed."""
    from retrieval_rag_data import write_dataset

    from gaia_eval.core.results import load_envelope

    ds = write_dataset(tmp_path / "data")
    out = tmp_path / "run"
    proc = _cli(
        "retrieval", "--component", "rag", "--dataset", str(ds), "--embedder", "hash",
        "--retrieval-only", "--out", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    env = load_envelope(out / "results.json", suite="retrieval-rag")
    assert env.header.complete and env.items
    assert env.header.run.argv[:3] == ["retrieval", "--component", "rag"]


def _registered_retrieval_lines() -> list[list[str]]:
    from gaia_eval.core.suite import _registry, runs

    lines = [list(r.argv) for r in runs().values()]
    for row in _registry().get("suite", {}).values():
        lines += [list(v) for v in row.get("gate_argv", {}).values()]
    return [argv for argv in lines if argv[:1] == ["retrieval"]]


@pytest.mark.parametrize("argv", _registered_retrieval_lines(), ids=" ".join)
def test_every_registered_retrieval_line_parses(argv: list[str]) -> None:
    """The nox sessions' and the baseline listing's command lines (core/suites.toml)."""
    ns = _parse(argv)
    (cell,) = ns._run.__closure__
    assert cell.cell_contents is {"rag": RAG, "code": CODE}[argv[2]]
