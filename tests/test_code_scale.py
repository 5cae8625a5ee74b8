"""The code-retrieval scale suite: its pins, and repositories it cannot obtain are unmeasured."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from gaia_eval.code_retrieval import runner, scale
from gaia_eval.code_retrieval import suites as suites_mod
from gaia_eval.code_retrieval.models import CodeRetrievalResults, ScaleRepo
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results_io import read_json

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
    on_disk: dict[str, CodeRetrievalResults] = {}
    measure = scale.measure

    def spy(repo: str, *args: object, **kwargs: object) -> ScaleRepo:
        # What a killed run would have left: results.json as it stood before this repository.
        on_disk[repo] = CodeRetrievalResults.model_validate(read_json(out / "results.json"))
        return measure(repo, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(runner.scale, "measure", spy)
    # No --instances-file and no network: the scale suite needs no SWE-bench rows.
    rc = main(
        [
            "retrieval", "--component", "code", "--suite", "scale", "--git-mirror", str(mirror),
            "--work-root", str(tmp_path / "work"), "--out", str(out),
        ]
    )  # fmt: skip
    assert rc == 0
    res = CodeRetrievalResults.model_validate(read_json(out / "results.json"))
    assert res.error is None and res.scale is not None
    assert [(r.repo, r.commit) for r in res.scale.repos] == [("t/small", small), ("t/big", big)]
    for r in res.scale.repos:
        assert r.files == 3 and r.chunks > 0 and r.index_bytes > 0
        assert r.wall_seconds is not None and r.wall_seconds >= r.index_seconds
    assert res.scale.repos[1].chunks > res.scale.repos[0].chunks
    reasons = {e.id: e.reason for e in res.scale.errors}
    assert list(reasons) == ["t/absent", "t/moved"]
    assert "no clone named t+absent" in reasons["t/absent"]
    assert "cannot obtain t/moved at " + "0" * 40 in reasons["t/moved"]
    # Saved before the first repository and after each: a killed run keeps what finished.
    before_small = on_disk["t/small"].scale
    assert before_small is not None and before_small.repos == [] and before_small.errors == []
    before_big = on_disk["t/big"].scale
    assert before_big is not None
    assert [r.repo for r in before_big.repos] == ["t/small"]
    assert [e.id for e in before_big.errors] == ["t/absent", "t/moved"]
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "Measured: 2; unmeasured: **2**." in md
    assert "- **unmeasured** t/absent: cannot obtain t/absent" in md
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
    res = CodeRetrievalResults.model_validate(read_json(out / "results.json"))
    assert res.error is not None and "no scale repository could be measured" in res.error
    assert res.scale is not None and res.scale.repos == []
    assert [e.id for e in res.scale.errors] == ["t/one", "t/two"]


def test_a_run_that_fails_before_its_first_part_leaves_no_scratch_behind(tmp_path: Path) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text("")  # none of the pr suite's pinned instances
    work = tmp_path / "work"
    with pytest.raises(InvalidInputError, match="needs instances"):
        runner.run(
            runner.RunOptions(suite="pr", out=tmp_path / "out", work_root=work, instances_file=rows)
        )
    assert work.is_dir() and list(work.iterdir()) == []
