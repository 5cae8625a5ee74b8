"""Shipped baselines by name: `--gate pr`, `--gate builtin:retrieval/pr`, `gaia-eval baselines`."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

import gaia_eval
from gaia_eval.cli.main import main
from gaia_eval.code_retrieval import options as code_retrieval_options
from gaia_eval.core import baselines
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.retrieval import options as rag_options

PACKAGE_BASELINES = Path(gaia_eval.__file__).parent / "baselines"
SHIPPED = sorted(PACKAGE_BASELINES.glob("*/*.json"))


def test_every_shipped_file_is_listed_and_resolves_back() -> None:
    listed = baselines.available()
    assert sorted(b.path for b in listed) == SHIPPED
    assert len(SHIPPED) >= 4
    for b in listed:
        assert baselines.resolve(b.ref, "anything") == b.path
        assert baselines.resolve(b.name, b.suite) == b.path
        assert baselines.resolve(f"{b.ref}.json", "x") == b.path


def test_short_names_are_per_suite_folder() -> None:
    assert baselines.resolve("pr", "retrieval") == PACKAGE_BASELINES / "retrieval" / "pr.json"
    code = PACKAGE_BASELINES / "code-retrieval"
    assert baselines.resolve("pr", "code-retrieval") == code / "pr.json"
    assert baselines.resolve("offline.json", "code-retrieval") == code / "offline.json"
    with pytest.raises(InvalidInputError, match=r"builtin:retrieval/pr\b"):
        baselines.resolve("offline", "retrieval")


def test_an_existing_file_wins_over_a_short_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("pr").write_text("{}")
    assert baselines.resolve("pr", "retrieval") == Path("pr")
    with pytest.raises(InvalidInputError, match="is a folder"):
        baselines.resolve(str(tmp_path), "retrieval")


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        ("builtin:pr", "builtin:<suite>/<name>"),
        ("builtin:retrieval/../x", "builtin:<suite>/<name>"),
        ("builtin:retrieval/nope", "shipped: builtin:retrieval/pr"),
        ("builtin:nosuch/pr", "none ship for nosuch"),
        ("results/missing.json", "no such file"),
    ],
)
def test_bad_names_say_what_ships(value: str, needle: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        baselines.resolve(value, "retrieval")
    assert needle in str(info.value)


def _parser(mod: object) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    mod.OPTIONS.add_to(p)  # type: ignore[attr-defined]
    return p


def test_gate_flags_take_short_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # nowhere near a checkout
    # Suites on the engine resolve --gate when the run is requested, in their own folder.
    from gaia_eval.code_retrieval.suite import CodeRetrievalSuite
    from gaia_eval.core.launch import request
    from gaia_eval.core.runloop import RunRequest
    from gaia_eval.retrieval.suite import RagSuite

    cases = [
        (rag_options, RagSuite, PACKAGE_BASELINES / "retrieval" / "pr.json", "pr"),
        (
            code_retrieval_options,
            CodeRetrievalSuite,
            PACKAGE_BASELINES / "code-retrieval" / "offline.json",
            "offline",
        ),
    ]
    for mod, cls, shipped, short in cases:
        folder = getattr(cls, "baselines_folder", cls.name)
        for value in (short, f"builtin:{shipped.parent.name}/{short}", str(shipped)):
            args = _parser(mod).parse_args(["--gate", value])
            req = request(args, ["retrieval"], folder=folder)
            assert isinstance(req, RunRequest)
            assert req.baseline == shipped, value


def test_compare_by_short_name_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    current = PACKAGE_BASELINES / "retrieval" / "pr.json"
    assert main(["retrieval", "--component", "rag", "--compare", "pr", str(current)]) == 0
    assert "pass" in capsys.readouterr().out.lower()


def test_unknown_gate_is_a_usage_error_listing_the_shipped_ones(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gaia_eval", "retrieval", "--component", "code",
         "--suite", "offline", "--gate", "nightly"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "--gate nightly: no such file" in proc.stderr
    assert "builtin:code-retrieval/offline" in proc.stderr


def test_baselines_command_lists_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["baselines"]) == 0
    out = capsys.readouterr().out
    for b in baselines.available():
        assert b.ref in out
    assert "gaia-eval retrieval --component rag --suite pr --gate pr" in out
    assert "embedder onnx:all-MiniLM-L6-v2-int8" in out
    # every row says the command that takes it, and what the run was
    for line in out.splitlines()[: len(baselines.available())]:
        use = line.split()[1]
        assert use == "gaia-eval", line
        assert "suite " in line, line
    assert "gaia-eval memory --suite pr --gate pr" in out
    assert "suite pr, embedder hash" in out.split("builtin:memory/pr")[1].splitlines()[0]
    assert main(["baselines", "--suite", "code-retrieval", "--paths"]) == 0
    paths = capsys.readouterr().out.split()
    assert sorted(Path(p) for p in paths) == sorted(PACKAGE_BASELINES.glob("code-retrieval/*.json"))
    assert main(["baselines", "--suite", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "no baselines ship for it" in err
    assert "code-retrieval" in err.split("suite folders:")[1]


def test_a_named_gate_reports_the_shipped_file_it_compared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--gate pr` from outside a checkout: the gate section names the file, not just `pr`."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run"
    assert main(["memory", "--suite", "pr", "--gate", "pr", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "gate passed against gaia_eval/baselines/memory/pr.json" in said
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "Gate **PASSED** against `gaia_eval/baselines/memory/pr.json` (commit " in report
    from gaia_eval.core.launch import request
    from gaia_eval.core.runloop import RunRequest

    for value in ("pr", "builtin:retrieval/pr"):
        args = _parser(rag_options).parse_args(["--gate", value])
        req = request(args, ["retrieval"], folder="retrieval")
        assert isinstance(req, RunRequest)
        assert req.baseline_label == "gaia_eval/baselines/retrieval/pr.json", value


def _doc_gates() -> list[tuple[str, str, str]]:
    """(doc, command line, --gate value) of every shipped-baseline name the docs show."""
    import re

    root = Path(__file__).resolve().parents[1]
    docs = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    found = []
    for doc in docs:
        text = doc.read_text(encoding="utf-8").replace("\\\n", " ")
        for line in re.findall(r"gaia-eval [^\n`|]*--gate [^\s`|]+", text):
            value = line.split("--gate ", 1)[1]
            if "/" in value.removeprefix("builtin:") and not value.startswith("builtin:"):
                continue  # a path
            if value.isupper() or "{" in value or value.endswith((".json", ".yaml")):
                continue  # a placeholder or a file of the user's
            found.append((doc.name, line, value))
    return found


# Which shipped folder each command's --gate names resolve in.
_FOLDERS = {
    "retrieval --component rag": "retrieval",
    "retrieval --component code": "code-retrieval",
    "memory": "memory",
    "code run": "code",
    "merge": "",
    "run retrieval-rag": "retrieval",
    "run code-retrieval": "code-retrieval",
    "run memory": "memory",
    "run code": "code",
}


def test_every_baseline_name_the_docs_show_resolves() -> None:
    gates = _doc_gates()
    assert len(gates) >= 5
    for doc, line, value in gates:
        command = line.removeprefix("gaia-eval ")
        folders = [f for prefix, f in _FOLDERS.items() if command.startswith(prefix)]
        assert folders, f"{doc}: `{line}`: which suite's baselines does it gate against?"
        path = baselines.resolve(value, folders[0])
        assert path.is_file() and path.is_relative_to(PACKAGE_BASELINES), f"{doc}: {line}"
