"""The RAG retrieval suite's declaration: datasets and hard cases as items, what a run
needs, its header, the gate (gate.py) and the report (report.py). Indexing and measuring
one item is runner.py's (`RagRun`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.reach import Endpoint
from gaia_eval.core.suite import HeaderFields, Item
from gaia_eval.retrieval import answer_cases, full_cases, hard_cases, scale, summary
from gaia_eval.retrieval.dataset import Dataset
from gaia_eval.retrieval.gate import GATE, comparable_fields
from gaia_eval.retrieval.models import DENSE_DEPTH, RagItem
from gaia_eval.retrieval.report import REPORT
from gaia_eval.retrieval.runner import (
    PLUGIN_PENDING,
    SUITE,
    DatasetSource,
    RagRun,
    definition,
    questions_digest,
)
from gaia_eval.retrieval.systems import SystemMaker

if TYPE_CHECKING:
    from gaia_eval.core.results import Envelope, Header
    from gaia_eval.llm.local_server import LocalServerInfo
    from gaia_eval.llm.spec import ModelSpec


class RagSuite(RagRun):
    """Document retrieval: is the labelled evidence found, by which pipeline, at what cost."""

    name: ClassVar[str] = SUITE
    baselines_folder: ClassVar[str] = "retrieval"  # `--gate pr`: gaia_eval/baselines/retrieval/
    title: ClassVar[str] = "RAG retrieval"
    item_model: ClassVar[type[BaseModel]] = RagItem
    item_noun: ClassVar[str] = "item"
    # Questions search under RagRun's lock; only the answer model's calls overlap.
    concurrent_items: ClassVar[bool] = True
    gate = GATE
    report = REPORT

    def default_jobs(self) -> int:
        """1 without an answer model (retrieval is CPU-bound); with one, the model's fit."""
        if self.answer_model is None:
            return 1
        from gaia_eval.llm.spec import default_jobs

        return default_jobs(self.answer_model)

    def __init__(
        self,
        *,
        tier: str | None,
        sources: Sequence[DatasetSource],
        maker: SystemMaker,
        embedder: str,
        hard_cases: bool,
        answer_model: ModelSpec | None = None,
        judge: ModelSpec | None = None,
        scale_plan: scale.ScalePlan | None = None,
        wikipedia: Path | None = None,
        near_duplicates: dict[str, list[Path]] | None = None,
        vlm: str | None = None,
        license_notes: dict[str, dict[str, str]] | None = None,
        pinned_files: list[str] | None = None,
        local_model: LocalServerInfo | None = None,
    ) -> None:
        self.local_model = local_model
        """The embedded server answering (or judging) when a spec is `local`: recorded, and
        its note (a 135M plumbing model) leads the report."""
        self.license_notes = license_notes
        """The corpus sources' licenses, recorded in the setup (full suite)."""
        self.pinned_files = pinned_files
        """Corpus files checked against a user pin, not a published hash (full suite)."""
        self.tier = tier
        self.scale_plan = scale_plan
        """The scale tiers (full suite); None: none."""
        self.wikipedia = wikipedia
        """The checked Wikipedia parquet, when the tiers' distractors come from it."""
        self.near_duplicates = near_duplicates
        """Company -> its several years of filings (full suite's near-duplicate case)."""
        self.vlm = vlm
        """The vision model reading PDF images (recorded; None: off)."""
        self.answer_model = answer_model
        """Answers are generated and graded only with a model (None: retrieval only)."""
        self.judge = judge
        """Grades `judge`-type answers; without it they are unscored."""
        self.sources = list(sources)
        self.maker = maker
        self.embedder = embedder
        self.hard_cases = hard_cases
        self._loaded: list[Dataset] | None = None
        super().__init__()

    # ---- definition ----------------------------------------------------------------------

    def datasets(self) -> list[Dataset]:
        """Every dataset, loaded and validated once (bad input stops before any indexing)."""
        if self._loaded is None:
            loaded = [src.load() for src in self.sources]
            seen: dict[str, Path] = {}
            for ds in loaded:
                if ds.id in seen:
                    msg = (
                        f"{ds.source}: dataset id {ds.id!r} is also the id of {seen[ds.id]}; "
                        "give each dataset of one run its own id"
                    )
                    raise InvalidInputError(msg)
                seen[ds.id] = ds.source
                for what, n in (("questions", len(ds.questions)), ("documents", len(ds.documents))):
                    if n == 0:
                        msg = (
                            f"{ds.source}: dataset {ds.id!r} has no {what}; nothing would be "
                            f"measured (add {what} or drop the dataset)"
                        )
                        raise InvalidInputError(msg)
            self._loaded = loaded
        return self._loaded

    def preflight(self) -> list[str]:
        """The reference system's optional extras (onnx for its embedder; pdf when a
        dataset holds a PDF: pypdf reads it, pypdfium2 rasterizes it for the scanned-PDF
        hard case) and what the answer model and judge need (SDK, API key, weights)."""
        from gaia_eval.core.extras import problem
        from gaia_eval.llm.preflight import model_needs

        out: list[str] = []
        if self.maker.reference:
            if self.embedder.split(":", 1)[0] == "onnx":
                out += [
                    p
                    for m in ("onnxruntime", "tokenizers")
                    if (p := problem(m, "onnx", f"--embedder {self.embedder}"))
                ]
            pdf = next(
                (
                    (ds, d)
                    for ds in self.datasets()
                    for d in ds.documents
                    if Path(d.path).suffix.lower() == ".pdf"
                ),
                None,
            )
            if pdf is not None:
                needed_by = f"dataset {pdf[0].id!r}: reading its PDF {pdf[1].id!r}"
                out += [p for p in [problem("pypdf", "pdf", needed_by)] if p]
                if self.hard_cases:
                    needed_by = "the scanned_pdf hard case (rasterizing a PDF)"
                    out += [p for p in [problem("pypdfium2", "pdf", needed_by)] if p]
        if self.answer_model is not None:
            out += model_needs(self.answer_model, "--model")
        if self.judge is not None:
            out += model_needs(self.judge, "--judge")
        return out

    def endpoints(self) -> list[Endpoint]:
        """The answer model's, the judge's and an `openai:` embedder's servers (the VLM
        is probed with a real image in setup, before anything is indexed)."""
        from gaia_eval.llm.preflight import model_endpoints
        from gaia_eval.llm.spec import parse_model_spec

        out = model_endpoints(self.answer_model, "--model")
        out += model_endpoints(self.judge, "--judge")
        if self.maker.reference and self.embedder.startswith("openai:"):
            out += model_endpoints(parse_model_spec(self.embedder, "--embedder"), "--embedder")
        return out

    def run_tier(self) -> str:
        """The suite's tier (`pr`), or for a run of your own data its dataset ids."""
        return self.tier or "+".join(ds.id for ds in self.datasets())

    def _settings(self, vlm: bool | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "dense_depth": DENSE_DEPTH,
            "vlm": vlm,
            "questions_digest": {ds.id: questions_digest(ds) for ds in self.datasets()},
        }
        if self.answer_model is not None:
            # Only when answers are on, so a retrieval-only header is unchanged.
            out["answer_model"] = self.answer_model.text
        if self.local_model is not None:
            from gaia_eval.llm.local_server import RECORD_KEY

            out[RECORD_KEY] = self.local_model.comparable()
        if self.scale_plan is not None:  # full suite only: the pr header is unchanged
            out["scale"] = {
                "tiers": list(self.scale_plan.tiers),
                "distractors": self.scale_plan.distractors,
                "ann_from": self.scale_plan.ann_from,
            }
        return out

    def header_fields(self) -> HeaderFields:
        reference = self.maker.reference
        return HeaderFields(
            tier=self.run_tier(),
            system=self.maker.label,
            embedder=self.embedder if reference else None,
            model=self.vlm if reference else None,
            judge=self.judge.text if self.judge else None,
            settings=self._settings((self.vlm is not None) if reference else None),
            pending=() if reference else PLUGIN_PENDING,
        )

    def items(self) -> list[Item]:
        out = [
            Item(f"{ds.id}/{q.id}", definition=definition(ds, q), payload=(i, q))
            for i, ds in enumerate(self.datasets())
            for q in ds.questions
        ]
        if self.scale_plan is not None:
            out += [
                Item(
                    f"{summary.SCALE_PREFIX}{tier}",
                    definition=["scale", tier, self.scale_plan.distractors],
                    payload=("scale", tier),
                )
                for tier in self.scale_plan.tiers
            ]
        if self.hard_cases:
            out += [
                Item(
                    f"{summary.HARD_PREFIX}{fn.__name__}",
                    definition=["hard_case", fn.__name__],
                    payload=fn,
                )
                for fn in hard_cases.PR_CASES
            ]
            if self.answer_model is not None:
                out.append(
                    Item(
                        f"{summary.HARD_PREFIX}prompt_injection",
                        definition=["hard_case", "prompt_injection"],
                        payload=partial(answer_cases.prompt_injection, model=self.answer_model),
                    )
                )
            if self.near_duplicates is not None:
                out.append(
                    Item(
                        f"{summary.HARD_PREFIX}near_duplicate_filings",
                        definition=["hard_case", "near_duplicate_filings"],
                        payload=partial(self._near_duplicates),
                    )
                )
                if self.answer_model is not None:
                    out.append(
                        Item(
                            f"{summary.HARD_PREFIX}query_history_leak",
                            definition=["hard_case", "query_history_leak"],
                            payload=partial(full_cases.query_history_leak, model=self.answer_model),
                        )
                    )
        return out

    # ---- reading results (files alone): summary.py, gate.py, report.py ---------------

    @classmethod
    def summarise(cls, env: Envelope) -> BaseModel:
        return summary.summarise(env)

    @classmethod
    def comparable_fields(cls, header: Header) -> dict[str, Any]:
        return comparable_fields(header)
