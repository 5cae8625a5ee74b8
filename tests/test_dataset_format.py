"""The dataset format users write: the example `--init-dataset` writes runs, the published
JSON Schema accepts it and rejects what the loader rejects, docs/datasets.md shows it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gaia_eval.cli.main import main
from gaia_eval.retrieval.dataset import load_dataset
from gaia_eval.retrieval.example_dataset import DATASET, dataset_json

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "schemas" / "retrieval.Dataset.schema.json"


def test_init_dataset_writes_an_example_that_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["retrieval", "--component", "rag", "--init-dataset", "ex"]) == 0
    assert "--dataset ex/dataset.json" in capsys.readouterr().out
    rc = main(
        ["retrieval", "--component", "rag", "--dataset", "ex/dataset.json", "--embedder", "hash"]
    )
    assert rc == 0
    (results,) = Path("eval/results").glob("*/results.json")
    data = json.loads(results.read_text())
    assert data["header"]["complete"] is True
    (ds,) = data["summary"]["datasets"]
    assert ds["dataset"] == "greenhouse-example"
    assert ds["summary"]["questions"] == len(DATASET["questions"]) == 5
    # Tiny documents: every answer is found; the example is a working starting point.
    assert ds["summary"]["sdk"]["recall@5"] == 1.0


def test_init_dataset_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "ex"
    assert main(["retrieval", "--component", "rag", "--init-dataset", str(target)]) == 0
    before = (target / "dataset.json").read_text()
    assert main(["retrieval", "--component", "rag", "--init-dataset", str(target)]) == 2
    assert f"{target / 'dataset.json'}" in capsys.readouterr().err
    assert (target / "dataset.json").read_text() == before


def _schema() -> dict[str, Any]:
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


def test_published_schema_accepts_the_example(tmp_path: Path) -> None:
    validator = jsonschema.Draft202012Validator(_schema())
    validator.check_schema(_schema())
    assert list(validator.iter_errors(json.loads(dataset_json()))) == []


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda d: d["questions"][0]["evidence"][0].pop("quote"), "evidence"),
        (lambda d: d["questions"][0].update(answer_type="fuzzy"), "answer_type"),
        (lambda d: d["questions"][0].update(evidnce=[]), "evidnce"),
        (lambda d: d["documents"][0].pop("path"), "path"),
        (lambda d: d["questions"][1].update(evidence=[]), "evidence"),
    ],
)
def test_schema_and_loader_reject_the_same_mistakes(
    tmp_path: Path, change: Any, where: str
) -> None:
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.retrieval.example_dataset import write_example

    data = copy.deepcopy(DATASET)
    change(data)
    errors = list(jsonschema.Draft202012Validator(_schema()).iter_errors(data))
    assert errors, "the published schema accepted a broken dataset"
    path = write_example(tmp_path)
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidInputError, match=where):
        load_dataset(path)


def test_the_docs_show_the_example_verbatim() -> None:
    text = (ROOT / "docs" / "datasets.md").read_text(encoding="utf-8")
    assert f"```json\n{dataset_json()}```" in text
    assert "schemas/retrieval.Dataset.schema.json" in text
