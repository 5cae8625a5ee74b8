"""The `gaia-eval` program: entry points, help, discovery and exit codes."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

from gaia_eval import __version__
from gaia_eval.cli import main as cli
from gaia_eval.core import errors


def gaia_eval_script() -> str:
    # The console script installed next to this interpreter (venv or nox session).
    found = shutil.which("gaia-eval", path=str(Path(sys.executable).parent))
    assert found, "the gaia-eval console script is not installed next to this python"
    return found


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def test_console_script_version() -> None:
    proc = run(gaia_eval_script(), "--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"gaia-eval {__version__}"
    assert __version__ != "0.0.0+unknown"


def test_console_script_help_lists_working_commands() -> None:
    proc = run(gaia_eval_script(), "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: gaia-eval")
    assert "bench" in proc.stdout
    assert "--version" in proc.stdout


def test_python_dash_m_is_the_same_program() -> None:
    proc = run(sys.executable, "-m", "gaia_eval", "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == run(gaia_eval_script(), "--help").stdout


def test_help_imports_nothing_heavy() -> None:
    """`--help` stays instant: no command module imports numpy, faiss or a model runtime."""
    heavy = ["numpy", "faiss", "onnxruntime", "tokenizers", "anthropic", "torch", "gaia_eval._core"]
    code = (
        "import sys\nfrom gaia_eval.cli.main import build_parser\nbuild_parser()\n"
        f"print(repr([m for m in {heavy!r} if m in sys.modules]))"
    )
    proc = run(sys.executable, "-c", code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_no_command_prints_help_and_exits_2() -> None:
    proc = run(gaia_eval_script())
    assert proc.returncode == errors.EXIT_INVALID == 2
    assert "usage: gaia-eval" in proc.stdout


def test_unknown_flag_is_a_usage_error() -> None:
    proc = run(gaia_eval_script(), "bench", "--no-such-flag")
    assert proc.returncode == 2
    assert "unrecognized arguments: --no-such-flag" in proc.stderr


def test_bench_unknown_area_names_the_flag_and_the_choices() -> None:
    proc = run(gaia_eval_script(), "bench", "--only", "metrics,nope")
    assert proc.returncode == 2
    assert "gaia-eval: error: --only 'metrics,nope': unknown area nope; choose from" in proc.stderr
    assert "metrics" in proc.stderr.split("choose from")[1]


# ---- exit codes: one place maps errors to codes ------------------------------------------


def fake_command(behaviour: BaseException | int) -> types.ModuleType:
    mod = types.ModuleType("gaia_eval.cli.fake")
    mod.NAME = "fake"  # type: ignore[attr-defined]
    mod.HELP = "a command for tests"  # type: ignore[attr-defined]
    mod.add_arguments = lambda parser: None  # type: ignore[attr-defined]

    def run_fake(args: argparse.Namespace) -> int:
        if isinstance(behaviour, BaseException):
            raise behaviour
        return behaviour

    mod.run = run_fake  # type: ignore[attr-defined]
    return mod


@pytest.mark.parametrize(
    ("behaviour", "code"),
    [
        (0, 0),
        (1, 1),
        (errors.GateFailedError("recall@5 fell"), 1),
        (errors.InvalidInputError("data.json: field 'id': missing"), 2),
        (errors.NotComparableError("different embedders"), 3),
        (errors.InfrastructureError("quota exhausted"), 3),
        (errors.LockHeldError("held by pid 1"), 4),
        (errors.LeakError("kind api-key survived"), 5),
        (errors.GaiaEvalError("unexpected"), 70),
        (KeyboardInterrupt(), 130),
    ],
)
def test_errors_map_to_documented_exit_codes(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    behaviour: BaseException | int,
    code: int,
) -> None:
    monkeypatch.setattr(cli, "_command_modules", lambda: [fake_command(behaviour)])
    assert cli.main(["fake"]) == code
    err = capsys.readouterr().err
    if isinstance(behaviour, errors.GaiaEvalError):
        assert err == f"gaia-eval: error: {behaviour}\n"
        assert errors.exit_code_for(behaviour) == code


def test_a_bug_exits_70_with_one_line_and_a_saved_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A non-gaia exception is a bug: exit 70 (never 1, which means a gate failed), one
    line on stderr saying so and where the traceback was saved."""
    from gaia_eval.core import runloop

    monkeypatch.setattr(cli, "_command_modules", lambda: [fake_command(ZeroDivisionError("x"))])
    monkeypatch.setitem(runloop.current_run_dir, "dir", tmp_path)
    assert cli.main(["fake"]) == errors.EXIT_INTERNAL
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bug in gaia-eval" in err[0]
    (saved,) = tmp_path.glob("gaia-eval-crash-*.txt")
    assert str(saved) in err[0]
    assert "ZeroDivisionError: x" in saved.read_text()


def test_listing_honours_available(monkeypatch: pytest.MonkeyPatch) -> None:
    hidden = fake_command(0)
    hidden.available = lambda: False  # type: ignore[attr-defined]
    shown = fake_command(0)
    shown.NAME = "shown"  # type: ignore[attr-defined]
    shown.available = lambda: True  # type: ignore[attr-defined]
    not_a_command = types.ModuleType("helpers")
    assert not cli._listed(hidden)
    assert cli._listed(shown)
    assert cli._listed(fake_command(0))  # no available(): listed
    assert not cli._listed(not_a_command)


def test_bench_json_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`bench --json` writes a schema-versioned file a reader can load back."""
    from gaia_eval.bench.common import BenchRow
    from gaia_eval.bench.models import BenchResult
    from gaia_eval.cli import bench
    from gaia_eval.core.results_io import read_model

    area = types.ModuleType("gaia_eval.bench.toy")
    area.TITLE = "toy"  # type: ignore[attr-defined]
    area.run = lambda quick: [  # type: ignore[attr-defined]
        BenchRow("10 items", "gaia_eval (native)", 0.001, note="compute"),
        BenchRow("10 items", "numpy", 0.004, ratio=4.0, note="compute"),
        BenchRow("10 items", "absent", float("nan"), note="skipped: not installed"),
    ]
    monkeypatch.setattr(bench, "areas", lambda: ["toy"])
    monkeypatch.setattr(bench, "_module", lambda name: area)
    out = tmp_path / "bench.json"
    assert cli.main(["bench", "--quick", "--json", str(out)]) == 0
    result = read_model(out, BenchResult)
    assert result.quick is True
    assert result.areas == ["toy"]
    assert [(r.impl, r.median_s, r.ratio) for r in result.rows] == [
        ("gaia_eval (native)", 0.001, None),
        ("numpy", 0.004, 4.0),
        ("absent", None, None),
    ]
    assert json.loads(out.read_text())["schema"] == 1


def test_schema_writes_then_checks_and_catches_drift(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "schemas"
    assert cli.main(["schema", "--out", str(out)]) == 0
    written = sorted(p.name for p in out.iterdir())
    assert "bench.BenchResult.schema.json" in written
    schema = json.loads((out / "bench.BenchResult.schema.json").read_text())
    assert schema["properties"]["schema"]["const"] == 1
    assert schema["additionalProperties"] is False
    assert cli.main(["schema", "--out", str(out), "--check"]) == 0

    (out / "bench.BenchResult.schema.json").write_text("{}\n")
    (out / "gone.Model.schema.json").write_text("{}\n")
    capsys.readouterr()
    assert cli.main(["schema", "--out", str(out), "--check"]) == errors.EXIT_GATE_FAILED
    err = capsys.readouterr().err
    assert "changed: bench.BenchResult.schema.json" in err
    assert "stale: gone.Model.schema.json" in err
    assert "nox -s schema" in err

    assert cli.main(["schema", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == written
    assert cli.main(["schema", "--out", str(out), "--check"]) == 0


def test_retrieval_help_names_the_components(capsys: pytest.CaptureFixture[str]) -> None:
    # argparse answers both, as for every other command (exit 0 and 2).
    with pytest.raises(SystemExit) as shown:
        cli.main(["retrieval", "--help"])
    assert shown.value.code == 0
    out = capsys.readouterr().out
    assert "--component {code,rag}" in out
    with pytest.raises(SystemExit) as refused:
        cli.main(["retrieval"])
    assert refused.value.code == errors.EXIT_INVALID
    assert "required: --component, {code,rag}" in capsys.readouterr().err
