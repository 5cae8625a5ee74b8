"""A small labelled dataset written into tmp_path, and a hand-written text PDF."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gaia_eval.retrieval.pdfimage import serialize_pdf

FILLER = (
    "This section repeats general remarks about maintenance schedules, staff rotas and "
    "the weather in the valley, none of which answers anything specific. "
)

DOCS: dict[str, tuple[str, str]] = {
    "pumps": (
        "pumps.md",
        "# Pump station\n\n"
        + FILLER * 3
        + "The north pump station delivers water at a pressure of 42 bar during the summer "
        "irrigation season.\n\n" + FILLER * 3,
    ),
    "bees": (
        "bees.txt",
        FILLER * 2 + "A healthy hive of honey bees\nholds roughly 50000 workers at the peak of the "
        "nectar flow in early July.\n" + FILLER * 4,
    ),
    "trains": (
        "trains.md",
        "# Railway\n\n"
        + FILLER * 4
        + "The overnight sleeper train from Lisbon to Madrid departs at 21:40 from the "
        "Oriente terminal every evening.\n\n" + FILLER * 2,
    ),
    "cheese": (
        "cheese.txt",
        FILLER * 3 + "Alpine cheese wheels mature in cold cellars for eighteen months before the "
        "cooperative sells them.\n" + FILLER * 3,
    ),
    "comets": (
        "comets.md",
        FILLER
        * 2
        + "Halley's comet returns to the inner solar system about every seventy six years, "
        "next in 2061.\n\n" + FILLER * 2,
    ),
}

QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "toy-001",
        "doc": "pumps",
        "question": "What pressure does the north pump station deliver water at in summer?",
        "answer": "42 bar",
        "answer_type": "numeric",
        "evidence": [{"quote": "delivers water at a pressure of 42 bar during the summer"}],
        "tags": ["text", "numeric"],
    },
    {
        "id": "toy-002",
        "doc": "bees",
        "question": "How many workers does a healthy hive of honey bees hold at peak nectar flow?",
        "answer": "50000 workers",
        "answer_type": "exact",
        "evidence": [{"quote": "holds roughly 50000 workers at the peak of the nectar flow"}],
        "tags": ["text"],
    },
    {
        "id": "toy-003",
        "doc": "trains",
        "question": "When does the overnight sleeper train from Lisbon to Madrid depart?",
        "answer": "21:40 from the Oriente terminal",
        "answer_type": "exact",
        "evidence": [
            {"quote": "The overnight sleeper train from Lisbon to Madrid departs at 21:40"}
        ],
        "tags": ["text", "spec"],
    },
    {
        "id": "toy-004",
        "doc": "cheese",
        "question": "How long do alpine cheese wheels mature in cold cellars?",
        "answer": "eighteen months",
        "answer_type": "exact",
        "evidence": [{"quote": "Alpine cheese wheels mature in cold cellars for eighteen months"}],
        "tags": ["text"],
    },
    {
        "id": "toy-005",
        "doc": "comets",
        "question": "How often does Halley's comet return to the inner solar system?",
        "answer": "every seventy six years",
        "answer_type": "exact",
        "evidence": [{"quote": "returns to the inner solar system about every seventy six years"}],
        "tags": ["text"],
    },
]


def write_dataset(
    folder: Path,
    *,
    questions: list[dict[str, Any]] | None = None,
    extra_docs: dict[str, str] | None = None,
) -> Path:
    """The toy dataset: five text documents, five questions; returns the dataset file."""
    docs_dir = folder / "docs"
    docs_dir.mkdir(parents=True, exist_ok=True)
    documents = []
    for doc_id, (name, text) in DOCS.items():
        (docs_dir / name).write_text(text, encoding="utf-8")
        documents.append({"id": doc_id, "path": f"docs/{name}"})
    for doc_id, rel in (extra_docs or {}).items():
        documents.append({"id": doc_id, "path": rel})
    qs = [
        {"answer_aliases": [], "language": "en", **q}
        for q in (questions if questions is not None else QUESTIONS)
    ]
    path = folder / "toy.json"
    path.write_text(
        json.dumps(
            {
                "id": "toy",
                "description": "Five short documents.",
                "documents": documents,
                "questions": qs,
            },
            indent=1,
        ),
        encoding="utf-8",
    )
    return path


def text_pdf(pages: list[list[str]]) -> bytes:
    """A minimal valid PDF with real text (Helvetica), one list of lines per page."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")
    tree = add(b"")
    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids = []
    for lines in pages:
        shown = b" ".join(b"(%s) '" % line.encode("latin-1") for line in lines)
        ops = b"BT /F1 11 Tf 72 740 Td 14 TL " + shown + b" ET"
        content = add(b"<< /Length %d >>\nstream\n" % len(ops) + ops + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
                b"/Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>"
                % (tree, font, content)
            )
        )
    return serialize_pdf(objects, catalog, tree, kids)
