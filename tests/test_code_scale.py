"""The code-retrieval scale suite: its pins, and repositories it cannot obtain are unmeasured."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from gaia_eval.code_retrieval import runner, scale
from gaia_eval.code_retrieval import suites as suites_mod
from gaia_eval.code_retrieval.models import CodeSummary, ScaleRepo
from gaia_eval.code_retrieval.suite import CodeRetrievalSuite
from gaia_eval.core import runloop
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results import Envelope, load_envelope
from gaia_eval.core.runloop import RunRequest, read_item_log


def _load(out: Path) -> tuple[Envelope, CodeSummary]:
    env = load_envelope(out / "results.json", suite="code-retrieval")
    return env, CodeSummary.model_validate(env.summary)


_GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=_GIT_ENV, check=True, capture_output=True, text=True
    ).stdout.strip()


def _repo(path: Path, functions: int) -> str:
    """A real git repository of Python files; returns its HEAD commit."""
    path.mkdir(parents=True)
    _git(path, "init", "-q", "-b", "main")
    for f in range(3):
        body = "".join(
            f"def f{f}_{i}(x):\n    return x * {i} + {f}\n\n\n" for i in range(functions)
        )
        (path / f"mod{f}.py").write_text(body, encoding="utf-8")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "start")
    return _git(path, "rev-parse", "HEAD")


def test_scale_suite_pins_the_five_spec_repositories_by_commit() -> None:
    suite = suites_mod.get("scale")
    assert [name for name, _ in suite.scale_repos] == [
        "psf/requests",
        "ROCm/TheRock",
        "ggml-org/llama.cpp",
        "django/django",
        "amd/gaia",
    ]
    assert all(re.fullmatch(r"[0-9a-f]{40}", commit) for _, commit in suite.scale_repos)
    assert dict(suite.scale_repos)["psf/requests"] == suites_mod.REQUESTS_PIN
    assert suite.parts == ("scale",)


def _scale_suite(monkeypatch: pytest.MonkeyPatch, pinned: tuple[tuple[str, str], ...]) -> None:
    suite = suites_mod.Suite(name="scale", parts=("scale",), scale_repos=pinned)
    monkeypatch.setitem(suites_mod.SUITES, "scale", suite)


def test_unobtainable_repositories_are_unmeasured_and_the_rest_are_measured_and_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mirror = tmp_path / "mirror"
    small = _repo(mirror / "t+small", 4)
    big = _repo(mirror / "t+big", 40)
    _repo(mirror / "t+moved", 2)
    _scale_suite(
        monkeypatch,
        (
            ("t/small", small),
            ("t/absent", small),  # no clone of that name in the mirror
            ("t/moved", "0" * 40),  # pinned commit the clone does not have
            ("t/big", big),
        ),
    )
    out = tmp_path / "out"
    on_disk: dict[str, list[str]] = {}
    measure = scale.measure

    def spy(repo: str, *args: object, **kwargs: object) -> ScaleRepo:
        # What a killed run would have left: the item log as it stood before this repository.
        on_disk[repo] = [f"{r.id} {r.status}" for r in read_item_log(out / "items.jsonl")]
        return measure(repo, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(scale, "measure", spy)
    # No --instances-file and no network: the scale suite needs no SWE-bench rows.
    rc = main(
        [
            "retrieval", "--component", "code", "--suite", "scale", "--git-mirror", str(mirror),
            "--work-root", str(tmp_path / "work"), "--out", str(out),
        ]
    )  # fmt: skip
    assert rc == 0
    env, res = _load(out)
    assert not env.header.complete and res.scale is not None
    assert [(r.repo, r.commit) for r in res.scale.repos] == [("t/small", small), ("t/big", big)]
    for r in res.scale.repos:
        assert r.files == 3 and r.chunks > 0 and r.index_bytes > 0
        assert r.wall_seconds is not None and r.wall_seconds >= r.index_seconds
    assert res.scale.repos[1].chunks > res.scale.repos[0].chunks
    reasons = {e.id: e.reason for e in res.scale.errors}
    assert list(reasons) == ["t/absent", "t/moved"]
    assert "no clone named t+absent" in reasons["t/absent"]
    assert "cannot obtain t/moved at " + "0" * 40 in reasons["t/moved"]
    # Saved after each repository: a killed run keeps what finished.
    assert on_disk["t/small"] == []
    assert on_disk["t/big"] == [
        "scale/t/small ok",
        "scale/t/absent infra_error",
        "scale/t/moved infra_error",
    ]
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "Measured 2; unmeasured **2**." in md
    assert "- **unmeasured** t/absent: cannot obtain t/absent" in md
    assert md.index("2 item(s) unmeasured") < md.index("## Scale")
    assert "| t/small | " in md and "| t/moved | " not in md


def test_a_scale_run_that_measures_nothing_fails_with_every_reason_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mirror").mkdir()
    _scale_suite(monkeypatch, (("t/one", "1" * 40), ("t/two", "2" * 40)))
    out = tmp_path / "out"
    rc = main(
        [
            "retrieval", "--component", "code", "--suite", "scale", "--git-mirror",
            str(tmp_path / "mirror"), "--work-root", str(tmp_path / "work"), "--out", str(out),
        ]
    )  # fmt: skip
    assert rc == 3  # an infrastructure failure, never an empty score
    env, res = _load(out)
    assert not env.header.complete and env.header.infra_errors == 2
    assert res.scale is not None and res.scale.repos == []
    assert [e.id for e in res.scale.errors] == ["t/one", "t/two"]


def test_a_run_that_fails_before_its_first_part_leaves_no_scratch_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A temp folder of the test's own: pids wrap (pid_max 32768), so the shared one can hold
    # a dead process's `gaia-eval-run-<this pid>-code-*` left before this worker was born.
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    rows = tmp_path / "rows.jsonl"
    rows.write_text("")  # none of the pr suite's pinned instances
    work = tmp_path / "work"
    suite = CodeRetrievalSuite(runner.RunOptions(suite="pr", work_root=work, instances_file=rows))
    with pytest.raises(InvalidInputError, match="needs instances"):
        runloop.run(suite, RunRequest(command="t", out=tmp_path / "out"))
    assert not work.exists() or list(work.iterdir()) == []
    assert not list(temp.glob(f"gaia-eval-run-{os.getpid()}-code-*"))
    assert list(temp.iterdir()) == []
