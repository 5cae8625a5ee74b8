"""Scenario files and a CLI runner for the agent suite's tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from agent_fakes import AGENT, DRIVER

from gaia_eval.cli.main import main

CORPUS_DOC = "corpus/python-heapq-pydoc.txt"


def scenario(
    sid: str,
    *,
    category: str = "rag_quality",
    docs: list[str] | None = None,
    messages: list[str] | None = None,
) -> dict[str, Any]:
    messages = messages or [f"question for {sid}"]
    return {
        "id": sid,
        "category": category,
        "persona": "casual_user",
        "setup": {"index_documents": [{"path": p} for p in (docs or [CORPUS_DOC])]},
        "turns": [
            {
                "turn": i,
                "objective": f"objective {i}",
                "user_message": m,
                "ground_truth": {"expected_answer": "The smallest"},
            }
            for i, m in enumerate(messages, start=1)
        ],
    }


def write(folder: Path, scenarios: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for sc in scenarios:
        (folder / f"{sc['id']}.yaml").write_text(yaml.safe_dump(sc), encoding="utf-8")
    return folder


def argv(url: str, scen_dir: Path, out: Path, *extra: str) -> list[str]:
    return [
        "agent",
        "--tier",
        "custom",
        "--scenarios-dir",
        str(scen_dir),
        "--model",
        f"openai:{url}#{AGENT}",
        "--driver-model",
        f"openai:{url}#{DRIVER}",
        "--out",
        str(out),
        *extra,
    ]


def run(url: str, scen_dir: Path, out: Path, *extra: str) -> int:
    return main(argv(url, scen_dir, out, *extra))


def card(out: Path) -> dict[str, Any]:
    data = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def statuses(out: Path) -> dict[str, str]:
    return {r["id"]: r["status"] for r in card(out)["scenarios"]}
