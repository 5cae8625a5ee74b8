"""`--init-dataset DIR`: a small working dataset to copy from (docs/datasets.md shows it).

Two short Markdown documents and five labelled questions covering each answer type, an
alias, a `near` hint and tags. The documents are this project's own text.
"""

from __future__ import annotations

import json
from pathlib import Path

from gaia_eval.core.errors import InvalidInputError

DOCUMENTS = {
    "docs/greenhouse-manual.md": """\
# Greenhouse controller manual

## Watering

The controller waters each bed for 90 seconds when the soil moisture drops below 30 percent.
Watering never starts between 22:00 and 06:00, so the pump stays quiet at night.

## Ventilation

The roof vents open fully when the air temperature reaches 28 degrees Celsius.
They close again once the temperature falls below 24 degrees Celsius.

## Alarms

A frost alarm sounds when any sensor reads below 2 degrees Celsius.
""",
    "docs/release-notes.md": """\
# Release notes

## Version 2.1

The humidity sensor is now read every 15 seconds instead of once a minute.

## Version 2.0

Version 2.0 adds support for up to eight watering beds per controller.
""",
}

DATASET = {
    "id": "greenhouse-example",
    "description": "Example dataset written by `gaia-eval retrieval --component rag "
    "--init-dataset`; replace the documents and questions with your own.",
    "documents": [
        {"id": "manual", "path": "docs/greenhouse-manual.md"},
        {"id": "release-notes", "path": "docs/release-notes.md"},
    ],
    "questions": [
        {
            "id": "q1-watering-time",
            "doc": "manual",
            "question": "How long does the controller water a bed?",
            "answer": "90 seconds",
            "answer_type": "numeric",
            "evidence": [
                {
                    "quote": "The controller waters each bed for 90 seconds when the soil "
                    "moisture drops below 30 percent."
                }
            ],
            "tags": ["watering"],
        },
        {
            "id": "q2-night",
            "doc": "manual",
            "question": "Why does watering never start at night?",
            "answer": "So that the pump stays quiet at night.",
            "answer_type": "judge",
            "evidence": [
                {
                    "near": "## Watering",
                    "quote": "Watering never starts between 22:00 and 06:00, so the pump "
                    "stays quiet at night.",
                }
            ],
            "tags": ["watering", "why"],
        },
        {
            "id": "q3-vents",
            "doc": "manual",
            "question": "At what air temperature do the roof vents open fully?",
            "answer": "28 degrees Celsius",
            "answer_type": "numeric",
            "evidence": [
                {"quote": "The roof vents open fully when the air temperature reaches 28 degrees"}
            ],
            "tags": ["ventilation"],
        },
        {
            "id": "q4-beds",
            "doc": "release-notes",
            "question": "How many watering beds can one controller drive?",
            "answer": "eight",
            "answer_aliases": ["8"],
            "answer_type": "exact",
            "evidence": [
                {"quote": "Version 2.0 adds support for up to eight watering beds per controller."}
            ],
            "tags": ["watering", "release-notes"],
        },
        {
            "id": "q5-humidity",
            "doc": "release-notes",
            "question": "How often is the humidity sensor read?",
            "answer": "every 15 seconds",
            "answer_type": "numeric",
            "evidence": [{"quote": "The humidity sensor is now read every 15 seconds"}],
            "tags": ["release-notes"],
        },
    ],
}


def dataset_json() -> str:
    """The example's dataset.json text (docs/datasets.md shows the same text)."""
    return json.dumps(DATASET, indent=2, ensure_ascii=False) + "\n"


def write_example(folder: Path) -> Path:
    """Write dataset.json and its documents into `folder`; refuse to overwrite anything."""
    from gaia_eval.core.results_io import write_text

    targets = [folder / "dataset.json", *(folder / rel for rel in DOCUMENTS)]
    present = [str(p) for p in targets if p.exists()]
    if present:
        msg = (
            f"--init-dataset {folder}: {', '.join(present)} already exist(s); "
            "choose an empty or new folder"
        )
        raise InvalidInputError(msg)
    for rel, text in DOCUMENTS.items():
        write_text(folder / rel, text)
    return write_text(folder / "dataset.json", dataset_json())
