"""A missing optional dependency or credential stops a run before it starts: exit 2, one
message naming every missing piece and the extra to install (never a traceback).

The real CLI runs in a subprocess with the module hidden (`sys.modules[name] = None`, so
both `import` and `find_spec` fail as they would without the package installed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
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
    assert "pip install 'gaia-eval[onnx]'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "run").exists()  # stopped before the run folder


def test_missing_pypdf_is_exit_2_naming_the_pdf_extra(tmp_path: Path) -> None:
    data = _with_pdf(tmp_path)
    argv = _rag(data, tmp_path / "run", "--no-hard-cases", "--embedder", "hash")
    proc = _cli(["pypdf"], argv)
    assert proc.returncode == 2, proc.stderr
    assert "reading its PDF 'manual'" in proc.stderr and "'pypdf'" in proc.stderr
    assert "pip install 'gaia-eval[pdf]'" in proc.stderr
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
    with pytest.raises(InvalidInputError, match=r"pip install 'gaia-eval\[onnx\]'"):
        OnnxEmbedder()


def test_code_retrieval_with_the_onnx_embedder_names_the_extra(tmp_path: Path) -> None:
    argv = ["retrieval", "--component", "code", "--embedder", "onnx", "--out", str(tmp_path / "r")]
    proc = _cli(["onnxruntime"], argv)
    assert proc.returncode == 2, proc.stderr
    assert "pip install 'gaia-eval[onnx]'" in proc.stderr and "Traceback" not in proc.stderr
