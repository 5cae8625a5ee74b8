"""A small stand-in for the full suite's corpora, generated deterministically: the same
file names and formats as the real ones (FinanceBench's jsonl and PDF filings, the
technical_docs PDFs holding the labelled quotes on their labelled pages, XQuAD's SQuAD
JSON in seven languages, a Simple English Wikipedia parquet), a few small documents each,
so `--suite full` can run every dataset, tier and hard case in seconds from a 127.0.0.1
file server. `python tests/retrieval_full_standin.py DIR` writes the files and a
sources.json pinning them to `--base URL`."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from gaia_eval.retrieval.full import TECHNICAL, XQUAD_LANGUAGES
from gaia_eval.systems.rag.minipdf import pdf_bytes

FILLER = (
    "The committee reviewed the annual figures and the notes that go with them. Each "
    "segment reported its own results, and the board approved the plan for next year."
)


def _filing(company: str, year: int, revenue: int) -> bytes:
    return pdf_bytes(
        [
            f"{company} Corporation annual report on Form 10-K for fiscal year {year}. " + FILLER,
            f"Consolidated statement of operations for fiscal {year}. {company} net revenue "
            f"for fiscal year {year} was ${revenue} million, compared with the prior year. "
            + FILLER,
            f"Risk factors and legal proceedings of {company} in {year}. " + FILLER,
        ]
    )


FILINGS = {
    "ACME_2021_10K": ("ACME", 2021, 1210),
    "ACME_2022_10K": ("ACME", 2022, 1375),
    "ACME_2023_10K": ("ACME", 2023, 1577),
    "BETA_2022_10K": ("BETA", 2022, 640),
}


def _fb_rows() -> list[dict[str, Any]]:
    rows = []
    for n, (doc, (company, year, revenue)) in enumerate(sorted(FILINGS.items())):
        if doc == "ACME_2021_10K":
            continue  # a filing no question cites: only the near-duplicate case uses it
        rows.append(
            {
                "financebench_id": f"financebench_id_{n:05d}",
                "company": company,
                "doc_name": doc,
                "question_type": "metrics-generated",
                "question": f"What was {company}'s net revenue for fiscal year {year}, in USD "
                "millions?",
                "answer": f"${revenue}.00",
                "evidence": [
                    {
                        "evidence_text": f"{company} net revenue for fiscal year {year} was "
                        f"${revenue} million",
                        "doc_name": doc,
                        "evidence_page_num": 1,
                    }
                ],
            }
        )
    rows.append(
        {
            "financebench_id": "financebench_id_09999",
            "company": "BETA",
            "doc_name": "BETA_2022_10K",
            "question_type": "novel-generated",
            "question": "What legal proceedings does BETA describe for 2022?",
            "answer": "It describes risk factors and legal proceedings without material cases.",
            "evidence": [
                {
                    "evidence_text": "Risk factors",
                    "doc_name": "BETA_2022_10K",
                    "evidence_page_num": 2,
                }
            ],
        }
    )
    return rows


def _technical() -> dict[str, bytes]:
    raw = json.loads(TECHNICAL.read_text(encoding="utf-8"))
    pages: dict[str, dict[int, list[str]]] = {d["id"]: {} for d in raw["documents"]}
    for q in raw["questions"]:
        for ev in q["evidence"]:
            pages[ev.get("doc", q["doc"])].setdefault(ev["page"], []).append(ev["quote"])
    out = {}
    for d in raw["documents"]:
        by_page = pages[d["id"]]
        n = max(by_page, default=2)
        body = [
            " ".join(by_page.get(p, [])) + f" Page {p} of the {d['id']} stand-in. " + FILLER
            for p in range(1, n + 1)
        ]
        out[f"{d['source']}/{d['file']}"] = pdf_bytes(list(body))
    return out


ARTICLES = [
    (
        "Harbour",
        [
            "The harbour opened in 1871 after the storm. Ships from the north used it.",
            "A lighthouse keeper named Ada Lind lived there for thirty years. She kept a log.",
        ],
    ),
    (
        "Glacier",
        [
            "The glacier retreats about forty metres a year. Scientists measure it each June.",
            "Its ice is older than the town of Brenn. The valley below was once a lake.",
        ],
    ),
    (
        "Orchard",
        [
            "The orchard grows seven kinds of apple. The oldest tree was planted in 1902.",
            "Pickers come in September from the coast. They are paid by the basket.",
        ],
    ),
]
ANSWERS = [["1871", "Ada Lind"], ["forty metres", "Brenn"], ["seven kinds", "September"]]
QUESTIONS = [
    ["When did the harbour open?", "Who was the lighthouse keeper?"],
    ["How far does the glacier retreat each year?", "Which town is younger than the ice?"],
    ["How many kinds of apple does the orchard grow?", "When do the pickers come?"],
]


def _xquad(lang: str) -> bytes:
    data = []
    for a, (title, paras) in enumerate(ARTICLES):
        paragraphs = []
        for p, text in enumerate(paras):
            # zh: CJK sentence ends, to exercise the quote cut at 。
            context = f"[{lang}] " + (text.replace(". ", "。") if lang == "zh" else text)
            answer = ANSWERS[a][p]
            paragraphs.append(
                {
                    "context": context,
                    "qas": [
                        {
                            "id": f"{a}{p}{lang}",
                            "question": f"({lang}) {QUESTIONS[a][p]}",
                            "answers": [{"text": answer, "answer_start": context.index(answer)}],
                        }
                    ],
                }
            )
        data.append({"title": f"{title} ({lang})", "paragraphs": paragraphs})
    return json.dumps({"data": data, "version": "1.0"}, ensure_ascii=False).encode("utf-8")


def _wikipedia() -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    topics = [
        "river",
        "mountain",
        "bridge",
        "market",
        "library",
        "railway",
        "forest",
        "castle",
        "island",
        "museum",
        "canal",
        "tower",
    ]
    rows = []
    for i, t in enumerate(topics * 2):
        n = 2100 + 137 * i
        sentence = f"The {t} number {i} is described in this article about places. "
        text = (sentence * (n // len(sentence) + 1))[:n]
        rows.append(
            {
                "id": str(i),
                "url": f"https://simple.wikipedia.org/wiki/{t}_{i}",
                "title": f"{t.title()} {i}",
                "text": text,
            }
        )
    rows.insert(3, {"id": "short", "url": "u", "title": "Stub", "text": "Too short to keep."})
    table = pa.Table.from_pylist(rows)
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def standin_files() -> tuple[dict[str, bytes], dict[str, dict[str, str]]]:
    """(served path -> bytes, manifest layout: source -> cache name -> served path)."""
    files: dict[str, bytes] = {}
    layout: dict[str, dict[str, str]] = {"financebench": {}, "xquad": {}, "wikipedia": {}}
    jsonl = "\n".join(json.dumps(r) for r in _fb_rows()) + "\n"
    files["fb/data/financebench_open_source.jsonl"] = jsonl.encode()
    layout["financebench"]["data/financebench_open_source.jsonl"] = (
        "fb/data/financebench_open_source.jsonl"
    )
    for doc, args in FILINGS.items():
        files[f"fb/pdfs/{doc}.pdf"] = _filing(*args)
        layout["financebench"][f"pdfs/{doc}.pdf"] = f"fb/pdfs/{doc}.pdf"
    for key, body in _technical().items():
        source, name = key.split("/", 1)
        files[f"tech/{key}"] = body
        layout.setdefault(source, {})[name] = f"tech/{key}"
    for lang in XQUAD_LANGUAGES:
        files[f"xq/xquad.{lang}.json"] = _xquad(lang)
        layout["xquad"][f"xquad.{lang}.json"] = f"xq/xquad.{lang}.json"
    files["wiki/simple.parquet"] = _wikipedia()
    layout["wikipedia"]["20231101.simple/train-00000-of-00001.parquet"] = "wiki/simple.parquet"
    return files, layout


if __name__ == "__main__":
    import argparse
    import hashlib

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--base", default="http://127.0.0.1:8765")
    a = parser.parse_args()
    served, lay = standin_files()
    for rel, body in served.items():
        (a.out / rel).parent.mkdir(parents=True, exist_ok=True)
        (a.out / rel).write_bytes(body)
    sources = {
        s: {
            "title": s,
            "homepage": a.base,
            "license": "stand-in",
            "files": {
                n: {
                    "url": f"{a.base}/{p}",
                    "sha256": hashlib.sha256(served[p]).hexdigest(),
                    "bytes": len(served[p]),
                }
                for n, p in names.items()
            },
        }
        for s, names in lay.items()
    }
    (a.out / "sources.json").write_text(json.dumps({"schema": 1, "sources": sources}, indent=1))
