"""A missing optional dependency or credential stops a run before it starts: exit 2, one
message naming every missing piece and the extra to install (never a traceback).

The real CLI runs in a subprocess with the module hidden (`sys.modules[name] = None`, so
both `import` and `find_spec` fail as they would without the package installed)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from retrieval_rag_data import text_pdf, write_dataset

_HIDING = (
    "import sys\n"
    "for name in sys.argv[1].split(','):\n"
    "    if name: sys.modules[name] = None\n"
    "from gaia_eval.cli.main import main\n"
    "sys.exit(main(sys.argv[2:]))\n"
)


def _cli(hide: list[str], argv: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **env}
    for key in [k for k, v in env.items() if v == ""]:
        full.pop(key)
    return subprocess.run(
        [sys.executable, "-c", _HIDING, ",".join(hide), *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=full,
        check=False,
    )


def _rag(data: Path, out: Path, *more: str) -> list[str]:
    return ["retrieval", "--component", "rag", "--dataset", str(data), "--out", str(out), *more]


def _with_pdf(tmp_path: Path) -> Path:
    pdf = tmp_path / "data" / "docs" / "manual.pdf"
    pdf.parent.mkdir(parents=True)
    pdf.write_bytes(text_pdf([["The valve opens at dawn."]]))
    return write_dataset(tmp_path / "data", extra_docs={"manual": "docs/manual.pdf"})


def test_missing_onnxruntime_is_exit_2_naming_the_onnx_extra(tmp_path: Path) -> None:
    data = write_dataset(tmp_path / "data")
    proc = _cli(["onnxruntime"], _rag(data, tmp_path / "run", "--no-hard-cases"))
    assert proc.returncode == 2, proc.stderr
    assert "'onnxruntime', which is not installed" in proc.stderr
    assert "-m pip install" in proc.stderr and "(the [onnx] extra)" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "run").exists()  # stopped before the run folder


def test_missing_pypdf_is_exit_2_naming_the_pdf_extra(tmp_path: Path) -> None:
    data = _with_pdf(tmp_path)
    argv = _rag(data, tmp_path / "run", "--no-hard-cases", "--embedder", "hash")
    proc = _cli(["pypdf"], argv)
    assert proc.returncode == 2, proc.stderr
    assert "reading its PDF 'manual'" in proc.stderr and "'pypdf'" in proc.stderr
    assert "-m pip install" in proc.stderr and "(the [pdf] extra)" in proc.stderr
    assert "Traceback" not in proc.stderr
    # With pypdf the same dataset runs (the check is not a refusal of PDFs).
    ok = _cli([], argv)
    assert ok.returncode == 0, ok.stderr


def test_the_embedder_itself_names_the_extra_when_onnxruntime_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.embed.onnx import OnnxEmbedder

    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(InvalidInputError, match=r"-m pip install .*\(the \[onnx\] extra\)"):
        OnnxEmbedder()


def test_code_retrieval_with_the_onnx_embedder_names_the_extra(tmp_path: Path) -> None:
    argv = ["retrieval", "--component", "code", "--embedder", "onnx", "--out", str(tmp_path / "r")]
    proc = _cli(["onnxruntime"], argv)
    assert proc.returncode == 2, proc.stderr
    assert (
        "-m pip install" in proc.stderr
        and "(the [onnx] extra)" in proc.stderr
        and "Traceback" not in proc.stderr
    )


_NO_KEYS = {"ANTHROPIC_API_KEY": "", "ANTHROPIC_AUTH_TOKEN": ""}


def test_rag_preflight_lists_everything_missing_in_one_message(tmp_path: Path) -> None:
    data = _with_pdf(tmp_path)
    argv = _rag(data, tmp_path / "run", "--no-hard-cases")
    argv += ["--model", "anthropic:claude-x", "--judge", "anthropic:claude-y"]
    proc = _cli(["onnxruntime", "pypdf", "anthropic"], argv, **_NO_KEYS)
    assert proc.returncode == 2, proc.stderr
    lines = [x for x in proc.stderr.splitlines() if x.startswith("  - ")]
    assert len(lines) == 4, proc.stderr
    assert "the run cannot start; missing:" in proc.stderr
    assert "'onnxruntime'" in lines[0] and "[onnx]" in lines[0]
    assert "'pypdf'" in lines[1] and "[pdf]" in lines[1]
    assert "anthropic SDK for --model 'anthropic:claude-x'" in lines[2]
    assert "anthropic SDK for --judge 'anthropic:claude-y'" in lines[3]
    assert not (tmp_path / "run").exists()


def test_memory_full_preflight_names_the_model_key_and_the_onnx_extra(tmp_path: Path) -> None:
    argv = ["memory", "--suite", "full", "--model", "anthropic:claude-x"]
    proc = _cli(["onnxruntime"], [*argv, "--out", str(tmp_path / "run")], **_NO_KEYS)
    assert proc.returncode == 2, proc.stderr
    assert "-m pip install" in proc.stderr and "(the [onnx] extra)" in proc.stderr
    assert "for --model 'anthropic:claude-x'" in proc.stderr
    assert not (tmp_path / "run").exists()


def test_sessions_preflight_names_the_judge_and_the_claude_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.core.runloop import check_preflight
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.sessions.models import SessionDataset
    from gaia_eval.sessions.suite import SessionsSuite

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.setitem(sys.modules, "anthropic", None)
    monkeypatch.setenv("GAIA_EVAL_CLAUDE_BIN", str(tmp_path / "no-such-claude"))
    dataset = SessionDataset(sessions_scanned=0, turns_extracted=0, limit=1, cases=[])
    judge = parse_model_spec("anthropic:claude-j", "--judge-model")
    suite = SessionsSuite(dataset, harness=None, system="claude-code", model=None, judge=judge)
    with pytest.raises(InvalidInputError) as info:
        check_preflight(suite)
    text = str(info.value)
    assert "anthropic SDK for --judge-model 'anthropic:claude-j'" in text
    assert "no-such-claude" in text and "--harness claude-code" in text
    # With the SDK, a key and the CLI nothing is missing.
    monkeypatch.delitem(sys.modules, "anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000000000000000")
    claude = tmp_path / "claude"
    claude.write_text("#!/bin/sh\n")
    claude.chmod(0o755)
    monkeypatch.setenv("GAIA_EVAL_CLAUDE_BIN", str(claude))
    if importlib.util.find_spec("anthropic") is not None:
        assert suite.preflight() == []


@pytest.mark.parametrize("extra", ["onnx", "pdf", "tasks", "code", "anthropic", "full", "local"])
def test_the_hint_installs_the_extras_requirements_with_this_interpreters_pip(
    extra: str,
) -> None:
    """gaia-eval is on no index, so `pip install 'gaia-eval[x]'` fails from a checkout;
    the hint names the requirements pyproject gives the extra (nested extras expanded),
    installed by the running interpreter's pip (no `python` or bare `pip` needed)."""
    import shlex
    import sys
    import tomllib

    from gaia_eval.core.extras import install_hint

    extras = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]

    def expand(name: str) -> list[str]:
        out: list[str] = []
        for req in extras[name]:
            nested = re.fullmatch(r"gaia-eval\[([\w,-]+)\]", req)
            out += [r for n in nested.group(1).split(",") for r in expand(n)] if nested else [req]
        return out

    words = shlex.split(install_hint(extra).split(" (the ")[0])
    assert words[:4] == [sys.executable, "-m", "pip", "install"]
    assert sorted(words[4:]) == sorted(dict.fromkeys(expand(extra)))
