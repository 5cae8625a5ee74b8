"""The code-retrieval pr suite's instances ship in the package: no --instances-file needed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from gaia_eval.code_retrieval import runner, suites
from gaia_eval.code_retrieval.instances import Instance
from gaia_eval.code_retrieval.suite import CodeRetrievalSuite
from gaia_eval.core import baselines

SHIPPED = suites.DATA_DIR / "swebench-pr-subset.jsonl"
SHA256 = "33a512874e58f225382ad9af581bfedf0a3efbf772f1f4e62c7d39a64d45a74a"


def test_the_shipped_rows_are_the_pinned_file() -> None:
    assert hashlib.sha256(SHIPPED.read_bytes()).hexdigest() == SHA256
    assert (suites.DATA_DIR / "README.md").is_file()  # provenance and licences


def _instances(tmp_path: Path, **opts: object) -> list[Instance]:
    suite = CodeRetrievalSuite(
        runner.RunOptions(suite="pr", work_root=tmp_path, **opts)  # type: ignore[arg-type]
    )
    return suite._instances()


def test_pr_suite_reads_the_shipped_rows_offline(tmp_path: Path) -> None:
    instances = _instances(tmp_path, offline=True)
    assert [i.instance_id for i in instances] == list(suites.PR_INSTANCE_IDS)
    for inst in instances:
        assert inst.patch.startswith("diff --git a/"), inst.instance_id
        assert len(inst.base_commit) == 40
        assert inst.source == "swebench-verified"
    assert list(tmp_path.iterdir()) == []  # nothing downloaded or cached


def test_the_shipped_rows_are_what_the_pr_baselines_measured(tmp_path: Path) -> None:
    ids = sorted(i.instance_id for i in _instances(tmp_path, offline=True))
    # The committed (pre-engine) baselines record sha256 of the sorted ids as `query_set`.
    digest = hashlib.sha256("\n".join(ids).encode()).hexdigest()
    for name in ("pr", "pr-hash"):
        baseline = json.loads(baselines.resolve(name, "code-retrieval").read_text())
        assert baseline["query_set"] == digest, name


def test_an_instances_file_still_wins(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in SHIPPED.read_text().splitlines()]
    first = {**rows[0], "problem_statement": "a changed statement"}
    given = tmp_path / "rows.jsonl"
    given.write_text("\n".join(json.dumps(r) for r in [first, *rows[1:]]))
    by_id = {i.instance_id: i for i in _instances(tmp_path, instances_file=given)}
    assert by_id[first["instance_id"]].problem_statement == "a changed statement"
