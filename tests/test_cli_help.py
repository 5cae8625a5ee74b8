"""Every command, subcommand, flag and positional says what it is for in --help."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gaia_eval.cli.main import EPILOG, build_parser
from gaia_eval.core import errors

ROOT = Path(__file__).resolve().parents[1]


def _parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every parser a user can reach, the retrieval components' included."""
    todo = [("gaia-eval", build_parser())]
    while todo:
        path, parser = todo.pop()
        yield path, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    todo.append((f"{path} {name}", sub))


def test_every_parser_is_walked() -> None:
    paths = {path for path, _ in _parsers()}
    want = {"gaia-eval tasks propose", "gaia-eval retrieval code", "gaia-eval baselines"}
    assert want <= paths


PARSERS = dict(_parsers())


@pytest.mark.parametrize("path", sorted(PARSERS))
def test_every_action_has_help(path: str) -> None:
    parser = PARSERS[path]
    assert parser.description, f"{path}: no description"
    for action in parser._actions:
        name = "/".join(action.option_strings) or action.dest
        if isinstance(action, argparse._SubParsersAction):
            listed = {a.dest: a.help for a in action._choices_actions}
            for sub in action.choices:
                assert listed.get(sub), f"{path} {sub}: no help line in the command list"
            continue
        assert action.help and action.help != argparse.SUPPRESS, f"{path} {name}: no help"


@pytest.mark.parametrize(
    ("component", "module"),
    [("rag", "gaia_eval.retrieval.options"), ("code", "gaia_eval.code_retrieval.options")],
)
def test_component_description_is_whole_sentences(component: str, module: str) -> None:
    import importlib

    parser = PARSERS[f"gaia-eval retrieval {component}"]
    assert parser.description is not None
    assert parser.description.rstrip().endswith((".", "?", ")")), parser.description
    first = (importlib.import_module(module).__doc__ or "").strip().split("\n\n")[0]
    assert parser.description == " ".join(first.split())
    assert parser.prog == f"gaia-eval retrieval --component {component}"


def test_component_help_prints_the_description() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gaia_eval", "retrieval", "--component", "code", "--help"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert "exits 1 on a regression." in " ".join(proc.stdout.split())


def test_top_help_names_every_doc_and_exit_code() -> None:
    docs = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert docs
    for name in docs:
        assert f"docs/{name}" in EPILOG, name
        assert (ROOT / "docs" / name).is_file()
    codes = {v for k, v in vars(errors).items() if k.startswith("EXIT_")} | {130, 143}
    for code in codes:
        assert re.search(rf"\b{code} ", EPILOG), code
    out = subprocess.run([sys.executable, "-m", "gaia_eval", "--help"],
                         capture_output=True, text=True, timeout=60, check=True).stdout  # fmt: skip
    assert "docs/architecture.md" in out


def test_readme_exit_code_table_lists_every_code() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = {int(m) for m in re.findall(r"^\| (\d+) \|", table, flags=re.M)}
    codes = {v for k, v in vars(errors).items() if k.startswith("EXIT_")} | {130, 143}
    assert codes <= rows, codes - rows
