"""Result models of the RAG retrieval benchmark.

A run's `results.json` is the suite engine's envelope (`core/results.py`) holding these
models: one item per question (`QuestionResult`, id `<dataset>/<question id>`) and per
hard case (`HardCase`, id `hard/<case>`), the set-up facts (`RagSetup`: datasets, index
build statistics, the system's settings) and the summary (`RagSummary`: per dataset, per
pipeline, by tag). `RagResults` is that envelope with these models filled in, for the
published JSON Schema.

`RetrievalResults` is the pre-engine file (schema 1: `meta`, `datasets[]`,
`hard_cases[]`); `legacy.py` converts such files (the committed baseline) to envelopes.
Metric keys keep their published spelling (`recall@5`), so the Python names differ
(`recall_at_5`) and the JSON names are aliases; always dump with `by_alias=True`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from gaia_eval.core.results import Envelope, ItemRecord
from gaia_eval.core.runmeta import Machine
from gaia_eval.retrieval.dataset import Dataset

SCHEMA_VERSION = 1
DENSE_DEPTH = 20
"""Depth of the `sdk` pipeline's dense search, and the deepest recall reported."""
SDK_KS = (1, 3, 5, 10, 20)
DOCUMENT_KS = (1, 5)
AGENT_KS = (1, 2, 3, 4, 5)

HardCaseStatus = Literal["pass", "fail", "measured", "skipped", "error"]


def _alias(name: str) -> Any:
    # Validation accepts the published key (and the Python name, via populate_by_name);
    # serialisation writes the published key.
    return Field(validation_alias=name, serialization_alias=name)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, use_attribute_docstrings=True)


class VlmSetting(_Model):
    """Whether a vision model reads PDF images; it changes a PDF's chunks, so gates compare it."""

    enabled: bool
    """True when a vision model read PDF images during indexing."""
    model: str | None = None
    """The vision model, when enabled."""


class SystemSettings(_Model):
    """The system under test's settings, as its `info()` reported them."""

    name: str
    """The system's own name (e.g. `gaia_eval.systems.rag`)."""
    chunk_size: int | None = None
    """Chunk size in the system's own unit (tokens or words), if it has one."""
    chunk_overlap: int | None = None
    """Overlap between consecutive chunks, if any."""
    max_chunks: int | None = None
    """Most chunks the `agent` pipeline returns."""
    extra: dict[str, Any] = Field(default_factory=dict)
    """Any further settings the system reports (capacity, cache layout, ...)."""


class RetrievalMeta(_Model):
    """Identity, setup and health of the run."""

    suite: str
    """`pr` or `full`; gates refuse to compare different suites."""
    component: Literal["rag"] = "rag"
    """Always `rag`: the document retrieval component."""
    package_version: str
    """gaia-eval version that ran."""
    started: str
    """Local ISO-8601 start time with UTC offset."""
    duration_s: float | None = None
    """Wall seconds of the whole run (indexing, queries, hard cases)."""
    cpu_s: float | None = None
    """CPU seconds (user + system) the process spent; unlike wall time, it does not grow
    when other work shares the machine."""
    git_sha: str | None = None
    """Commit of the checkout the run came from, if any."""
    git_dirty: bool | None = None
    """True when that checkout had uncommitted changes."""
    machine: Machine
    """Where it ran."""
    system: str
    """`reference` (gaia_eval.systems.rag) or the `--system module:factory` string."""
    embedder: str
    """The embedder spec; gates refuse to compare different embedders."""
    vlm: VlmSetting
    """The vision-model setting; gates refuse to compare different settings."""
    rag_settings: SystemSettings | None = None
    """The system's reported settings (None when the run stopped before building it)."""
    dense_depth: int = DENSE_DEPTH
    """Depth of the `sdk` pipeline's search."""
    answers: bool = False
    """Whether answers were generated and graded (schema-1 files: always False)."""
    complete: bool = False
    """True only when every dataset and hard case finished; a crashed run stays False."""
    work_dir: str | None = None
    """The kept work folder (index caches, copies) with `--keep-work`; else None."""
    errors: list[str] = Field(default_factory=list)
    """Errors that stopped or damaged the run, first one first."""


class FailedDocument(_Model):
    """A document that did not index (so its questions are scored as misses)."""

    doc: str
    """Document id."""
    required: bool
    """True when a question's evidence is in this document."""
    status: str
    """The indexing status (`failed`, `empty`) or `error` when indexing raised."""
    error: str | None = None
    """The system's reason, at most 300 characters."""


class DocumentStats(_Model):
    """How indexing one document went."""

    doc: str
    """Document id."""
    status: str
    """`indexed`, `cached`, `degraded`, `empty`, `failed` or `error`."""
    seconds: float
    """Wall seconds of the `index` call."""
    chunks: int
    """Chunks the system produced."""
    pages: int
    """Pages, for paged documents (0 otherwise)."""
    from_cache: bool
    """True when served from the system's chunk cache."""
    bytes: int
    """File size on disk."""
    error: str | None = None
    """The system's reason for a non-`indexed` status, at most 300 characters."""
    notes: list[str] = Field(default_factory=list)
    """The system's remarks that do not change the status (e.g. a cache entry rebuilt)."""


class IndexStats(_Model):
    """Index build statistics of one dataset."""

    documents: int
    """Documents in the dataset."""
    indexed: int
    """Documents that indexed (fresh, cached or degraded)."""
    failed: list[FailedDocument]
    """Documents that did not index."""
    required_failed: int
    """Failed documents that hold evidence; gates fail when this grows."""
    degraded: list[str]
    """Documents indexed only in part (e.g. a damaged PDF), flagged by the system."""
    chunks: int
    """Chunks across indexed documents."""
    embedding_dim: int | None
    """Vector dimension, when the system reports it."""
    embedder_load_s: float
    """Seconds to build the system (loading the embedder)."""
    index_s: float
    """Seconds spent in `index` calls."""
    docs_per_s: float
    """Documents indexed per second of `index_s`."""
    chunks_per_s: float
    """Chunks indexed per second of `index_s`."""
    rss_start_mb: float
    """Resident memory before indexing (MiB)."""
    rss_peak_mb: float
    """Peak resident memory during indexing, sampled every 0.2 s (MiB)."""
    rss_end_mb: float
    """Resident memory after indexing (MiB)."""
    rss_growth_mb: float
    """rss_peak_mb - rss_start_mb."""
    vectors_mb: float | None
    """chunks x dim x 4 bytes (MiB), when the dimension is known."""
    chunk_text_mb: float
    """UTF-8 size of all chunk texts (MiB)."""
    cache_on_disk_mb: float | None
    """Size of the system's cache folder (MiB); None for systems without one."""
    unlocated_chunks: int
    """Chunks not found in their document's text (the run aborts above 1%)."""
    vectors_from_cache: int | None = None
    """Chunk vectors the embedding cache served while indexing (bit-identical to fresh
    ones); None when the system's embedder is not cached or the system does not say."""
    vectors_computed: int | None = None
    """Chunk vectors the embedder computed while indexing; None as for the above."""
    per_document: list[DocumentStats]
    """Per-document indexing, in dataset order."""


class SdkSummary(_Model):
    """Recall and MRR of the `sdk` pipeline (plain dense top-20) over first-hit ranks."""

    n: int
    """Questions scored."""
    recall_at_1: float = _alias("recall@1")
    """Share of questions with a hitting chunk at rank 1."""
    recall_at_3: float = _alias("recall@3")
    """... within the top 3."""
    recall_at_5: float = _alias("recall@5")
    """... within the top 5 (gated)."""
    recall_at_10: float = _alias("recall@10")
    """... within the top 10."""
    recall_at_20: float = _alias("recall@20")
    """... within the top 20."""
    mrr: float
    """Mean of 1/first-hit rank, misses as 0 (gated)."""
    ndcg_at_10: float | None = Field(
        None, validation_alias="ndcg@10", serialization_alias="ndcg@10"
    )
    """nDCG@10: 1 / log2(rank + 1) of the first hit within the top 10, misses as 0 (not
    gated; None in runs written before it was reported)."""


class DocumentSummary(_Model):
    """Whether any chunk from an evidence document was retrieved (`sdk` pipeline)."""

    n: int
    """Questions scored."""
    recall_at_1: float = _alias("recall@1")
    """Share with an evidence document's chunk at rank 1."""
    recall_at_5: float = _alias("recall@5")
    """... within the top 5."""


class AgentSummary(_Model):
    """Recall of the `agent` pipeline, scored on the list it actually returns."""

    n: int
    """Questions scored."""
    recall_at_1: float = _alias("recall@1")
    """Share with a hitting chunk first."""
    recall_at_2: float = _alias("recall@2")
    """... within the first 2 returned."""
    recall_at_3: float = _alias("recall@3")
    """... within the first 3 returned."""
    recall_at_4: float = _alias("recall@4")
    """... within the first 4 returned."""
    recall_at_5: float = _alias("recall@5")
    """... within the first 5 returned."""
    mrr: float
    """Mean of 1/first-hit rank, misses as 0."""
    recall_at_returned: float = _alias("recall@returned")
    """Share where any returned chunk hits (gated)."""
    mean_returned: float
    """Mean number of chunks returned."""


class LatencySummary(_Model):
    """Query latency; percentiles by linear interpolation between closest ranks."""

    n: int
    """Queries timed."""
    p50_ms: float | None
    """Median, milliseconds (None when n = 0)."""
    p95_ms: float | None
    """95th percentile, milliseconds."""
    max_ms: float | None
    """Slowest query, milliseconds."""


class AnswerResult(_Model):
    """The model's answer to one question, graded (docs/retrieval-rag.md)."""

    text: str
    """The reply, at most 1,200 characters."""
    correct: bool | None
    """Graded correct / wrong; None when unscored (a free-form answer without --judge,
    or a question without a gold answer)."""
    in_context: bool
    """True when a chunk sent to the model holds the evidence."""
    outcome: Literal[
        "correct", "correct_without_evidence", "generation_miss", "retrieval_miss", "unscored"
    ]
    """correct / correct_without_evidence / generation_miss (the evidence was sent and the
    answer is still wrong) / retrieval_miss (the evidence never reached the model) /
    unscored."""
    graded_by: Literal["numeric", "exact", "judge"] | None
    """Which rule graded it (None: unscored)."""
    context_chunks: int
    """Chunks sent to the model."""
    latency_s: float
    """Seconds of the model call."""
    token_f1: float | None = None
    """Token-overlap F1 against the gold, for `exact` answers only."""
    input_tokens: int = 0
    """Prompt tokens the backend reported (0: not reported)."""
    output_tokens: int = 0
    """Reply tokens the backend reported."""
    canary: bool = False
    """True when the reply carries the prompt-injection canary (`CANARY-7Q4`): a planted
    instruction took over an answer."""


class AnswerSummary(_Model):
    """Answer accuracy and where the wrong answers went wrong."""

    answered: int
    """Questions the model answered."""
    scored: int
    """Answers graded (not unscored)."""
    correct: int
    """Answers graded correct (with or without the evidence in context)."""
    accuracy: float | None
    """correct / scored (None when nothing was scored)."""
    outcomes: dict[str, int]
    """Count per outcome (every outcome named, zeros included)."""
    latency: LatencySummary
    """Latency of the model calls."""


class Summary(_Model):
    """Aggregates over a dataset's questions (values rounded to 4 decimals)."""

    questions: int
    """Questions scored."""
    evidence_not_indexed: int
    """Questions whose evidence document failed to index (scored as misses)."""
    sdk: SdkSummary
    """The `sdk` pipeline."""
    sdk_document: DocumentSummary
    """Document-level recall of the `sdk` pipeline."""
    sdk_latency: LatencySummary
    """Latency of `search(query, 20)`."""
    agent: AgentSummary
    """The `agent` pipeline."""
    agent_latency: LatencySummary
    """Latency of `agent_search(query)`."""
    answers: AnswerSummary | None = None
    """Answer accuracy and the miss split (None: retrieval only)."""


class TagSummary(_Model):
    """One tag's slice of the questions."""

    questions: int
    """Questions carrying the tag."""
    sdk_recall_at_5: float = _alias("sdk_recall@5")
    """`sdk` recall@5 over them."""
    agent_recall_at_returned: float = _alias("agent_recall@returned")
    """`agent` recall@returned over them."""
    answer_accuracy: float | None = None
    """Share of the tag's scored answers that are correct (None: answers off or none
    scored)."""


class QuestionResult(_Model):
    """One question's outcome in both pipelines."""

    kind: Literal["question"] = "question"
    """Marks a question item (the other kind is `hard_case`)."""
    id: str
    """Question id."""
    dataset: str
    """Dataset id."""
    doc: str
    """The document the question is about."""
    question: str | None = None
    """The question's text (None in files written before it was recorded)."""
    tags: list[str]
    """The dataset's tags for it."""
    language: str
    """Language code."""
    answer_type: str
    """`numeric`, `exact` or `judge`."""
    sdk_rank: int | None
    """1-based rank of the first hitting chunk in the `sdk` top 20, or None."""
    sdk_doc_rank: int | None
    """1-based rank of the first chunk from an evidence document, or None."""
    agent_rank: int | None
    """1-based rank of the first hitting chunk the `agent` pipeline returned, or None."""
    agent_returned: int
    """Chunks the `agent` pipeline returned."""
    sdk_latency_s: float
    """Seconds of the `sdk` search."""
    agent_latency_s: float
    """Seconds of the `agent` search."""
    evidence_not_indexed: bool
    """True when an evidence document failed to index; then every rank is None."""
    answer: AnswerResult | None = None
    """The model's graded answer (None: retrieval only, or no gold answer)."""
    label_overlap: float | None = None
    """Label sanity check (FinanceBench): the best share, over the question's page labels
    with annotator text, of that text's words (its first 2,000 characters) found on the
    labelled page; None without such labels."""


class DatasetResult(_Model):
    """One dataset's run."""

    dataset: str
    """Dataset id."""
    description: str
    """The dataset's description."""
    source: str
    """Where it came from: `builtin:<name>`, a dataset file or a BEIR folder."""
    questions_digest: str
    """sha256 over question ids, documents and evidence; gates refuse a different set."""
    index: IndexStats | None
    """Index build stats (None when the run stopped during indexing)."""
    summary: Summary
    """Aggregates over the questions finished."""
    by_tag: dict[str, TagSummary]
    """Per tag, plus a synthetic `lang:<code>` tag per language."""
    questions: list[QuestionResult]
    """Every finished question, in dataset order."""


class HardCase(_Model):
    """One hard case (docs/retrieval-rag.md)."""

    kind: Literal["hard_case"] = "hard_case"
    """Marks a hard-case item."""
    id: str
    """Stable id, e.g. `corrupted_cache`."""
    title: str
    """One line for people."""
    status: HardCaseStatus
    """pass, fail, measured (numbers, no threshold) or skipped (with the reason); `error`
    only in schema-1 files (a case that crashes is now an item error, which fails the run)."""
    finding: str
    """What happened, in one or two sentences."""
    details: dict[str, Any] = Field(default_factory=dict)
    """Measured values and the evidence behind the status."""


class AnnTrial(_Model):
    """An approximate FAISS index tried on a scale tier's vectors, against the flat index."""

    index: str
    """FAISS index (`IndexIVFFlat`, `IndexHNSWFlat`) and its search parameters."""
    build_s: float
    """Seconds to build (and train) it over the tier's vectors."""
    recall_at_10_vs_flat: float
    """Mean share of the flat index's top 10 it also returns (1.0: no loss)."""
    p50_ms: float
    """Median search latency per query (query vector given)."""
    p95_ms: float
    """95th percentile search latency per query."""


class ScaleTier(_Model):
    """One scale tier: the most-questioned documents padded with distractors to a size."""

    kind: Literal["scale_tier"] = "scale_tier"
    """Marks a scale-tier item."""
    tier: int
    """Documents indexed in the tier (targets plus distractors)."""
    targets: list[str]
    """The labelled documents (repo_docs' most questioned)."""
    distractors: Literal["wikipedia", "generated"]
    """Where the padding came from: Simple English Wikipedia, or generated offline."""
    embedder: str
    """The embedder that indexed the tier."""
    ok: bool
    """True when every target document indexed (otherwise the tier's recall is not
    comparable)."""
    index: IndexStats
    """Build statistics (per-document list left out)."""
    slowest: list[DocumentStats]
    """The five slowest documents to index."""
    summary: Summary
    """Recall, MRR and latency of both pipelines over the tier's questions."""
    faiss_index: str | None = None
    """The system's FAISS index type (None: not the reference system)."""
    flat_p50_ms: float | None = None
    """Flat-index search latency (query vector given), median, for the ANN comparison."""
    flat_p95_ms: float | None = None
    """Flat-index search latency, 95th percentile."""
    ann: list[AnnTrial] = Field(default_factory=list)
    """IVF and HNSW tried from `ann_from` documents on (empty below)."""


class RetrievalResults(_Model):
    """A RAG retrieval results.json before the suite engine (schema 1); read only, by the
    legacy converter, so the committed baseline keeps loading unedited."""

    schema_version: Literal[1] = Field(default=1, alias="schema")
    """Schema version of this file."""
    meta: RetrievalMeta
    """Identity, setup and health of the run."""
    datasets: list[DatasetResult] = Field(default_factory=list)
    """One entry per dataset run."""
    hard_cases: list[HardCase] | None = None
    """Hard cases, or None when they were not run (`--no-hard-cases`)."""

    def to_json_dict(self) -> dict[str, Any]:
        """The published shape (metric keys such as `recall@5`)."""
        return self.model_dump(mode="json", by_alias=True)


# ---- the suite engine's envelope ------------------------------------------------------


class RagItem(
    RootModel[Annotated[QuestionResult | HardCase | ScaleTier, Field(discriminator="kind")]]
):
    """One item's result: a question, a hard case or a scale tier (told apart by `kind`)."""


class DatasetSetup(_Model):
    """A dataset of the run, as set-up knew it before any query."""

    dataset: str
    """Dataset id (the first part of its question items' ids)."""
    description: str
    """The dataset's description."""
    source: str
    """Where it came from: `builtin:<name>`, a dataset file or `beir:<folder>`."""
    questions_digest: str
    """sha256 over question ids, documents, questions and evidence; gates refuse a different
    set."""
    questions: int
    """Questions in the dataset."""
    documents: int
    """Documents in the dataset."""
    documents_outside: list[str] = Field(default_factory=list)
    """Documents whose file is outside the dataset's folder (allowed by `--allow-outside`
    or the dataset's `allow_outside`)."""


class RagSetup(BaseModel):
    """What set-up recorded: the datasets, the system, and one `index/<dataset>` key of index
    build statistics per dataset indexed (one key each, so a resumed or sharded part that
    indexes one dataset adds to the others instead of replacing them)."""

    model_config = ConfigDict(extra="allow", use_attribute_docstrings=True)
    __pydantic_extra__: dict[str, IndexStats] = Field(init=False)

    datasets: list[DatasetSetup] = Field(default_factory=list)
    """Every dataset of the run, in run order."""
    system: SystemSettings | None = None
    """The system's reported settings (None when setup stopped before building it)."""
    sources: dict[str, dict[str, str]] | None = None
    """Full suite: each corpus source's title, homepage and license (from sources.json)."""
    local_model: dict[str, Any] | None = None
    """The embedded server that answered or judged (`--model local`): weights, threads,
    slots and the note every report of such a run leads with (a 135M plumbing model)."""
    pinned_corpus_files: list[str] | None = None
    """Full suite: corpus files checked against the user's pin (`--pin-unverified`), not a
    published hash (sources.PINNED_KEY)."""

    def index(self, dataset: str) -> IndexStats | None:
        """The dataset's index statistics (None: not indexed, e.g. setup stopped first)."""
        return (self.__pydantic_extra__ or {}).get(f"index/{dataset}")


class DatasetSummary(_Model):
    """One dataset's results: its index and the aggregates over its questions."""

    dataset: str
    """Dataset id."""
    description: str
    """The dataset's description."""
    source: str
    """Where it came from."""
    questions_digest: str
    """sha256 of the question set (see DatasetSetup)."""
    questions_total: int
    """Questions in the dataset (more than `summary.questions` when some did not run)."""
    documents_outside: list[str] = Field(default_factory=list)
    """Documents whose file is outside the dataset's folder (allowed, and said so)."""
    index: IndexStats | None
    """Index build statistics (None when indexing did not finish)."""
    summary: Summary
    """Aggregates over the questions measured."""
    by_tag: dict[str, TagSummary]
    """Per tag, plus a synthetic `lang:<code>` tag per language."""


class RagSummary(_Model):
    """The suite's summary: per dataset, and the hard cases' outcomes."""

    datasets: list[DatasetSummary] = Field(default_factory=list)
    """Every dataset, in run order."""
    hard_cases: dict[str, str] | None = None
    """Hard case id -> status (`error`: it crashed); None when none were run."""
    canary_answers: list[str] | None = None
    """Ids of the questions whose answer carried the prompt-injection canary (None: no
    answers in the run)."""


class RagItemRecord(ItemRecord):
    """An item record whose result is a RAG item."""

    result: RagItem | None = None  # type: ignore[assignment]
    """The question's or hard case's result."""


class RagResults(Envelope):
    """A RAG retrieval run's `results.json`: the engine's envelope with the RAG models."""

    items: list[RagItemRecord] = Field(default_factory=list)  # type: ignore[assignment]
    """One record per question and hard case run, in run order."""
    setup: RagSetup = Field(default_factory=RagSetup)  # type: ignore[assignment]
    """Datasets, system settings and `index/<dataset>` index statistics."""
    summary: RagSummary = Field(default_factory=RagSummary)  # type: ignore[assignment]
    """Per-dataset summaries and hard-case outcomes."""


RESULT_MODELS = (RagResults,)
# Formats users write: `gaia-eval schema` publishes them beside the results (docs/datasets.md).
INPUT_MODELS = (Dataset,)
