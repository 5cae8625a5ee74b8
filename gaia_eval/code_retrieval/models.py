"""Result models of the code-retrieval benchmark (`results.json`, schema 1)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gaia_eval.core.models import ResultModel as _Model

Outcome = Literal["correct", "raised", "silent-empty", "silent-wrong"]
HazardStatus = Literal["pass", "fail", "not-run"]


class Environment(_Model):
    machine: str
    """Host name."""
    os: str
    """OS name and release."""
    cpu: str
    """CPU model."""
    logical_cpus: int
    """Logical CPUs visible to the process."""
    ram_gb: float
    """Physical memory, GiB."""
    python: str
    """Python version."""
    gaia_commit: str | None
    """Commit of the gaia_eval checkout, if any."""
    gaia_dirty: bool | None
    """Uncommitted changes in that checkout."""
    embedding_model: str
    """Embedder spec; gates refuse to compare different ones."""
    system: str
    """The code index under test (`gaia_eval.code_index` or a `module:factory`)."""


class Config(_Model):
    search_depth: int
    """Chunks asked of the semantic search per query."""
    file_ks: list[int]
    """Cut-offs of file recall."""
    symbol_ks: list[int]
    """Cut-offs of symbol recall."""
    seed: int
    """Seed of every sample."""
    max_repo_chunks: int | None
    """Repositories over this many parse-only chunks are excluded (None: no cap)."""
    nightly_max_chunks: int
    """The nightly suite's cap."""


class Gold(_Model):
    files: list[str]
    """Gold files the index holds (scored)."""
    symbols: list[str]
    """Gold symbols as `path::qualname`."""
    created_files: list[str]
    """Files the fix creates (not scored)."""
    not_in_index: list[str]
    """Gold files the index does not hold (e.g. CHANGES.rst)."""


class IndexStats(_Model):
    seconds: float
    """Wall seconds of the (incremental) re-index before this query."""
    files_reparsed: int
    """Files parsed and embedded again."""
    chunks: int
    """Chunks in the index."""
    chunks_dropped: int
    """Chunks whose embedding failed."""
    vectors_from_cache: int | None = None
    """Chunk vectors of this re-index served by the embedding cache (bit-identical to
    fresh ones); None in files written before it was counted."""
    vectors_computed: int | None = None
    """Chunk vectors of this re-index the embedder computed."""


class Scores(_Model):
    seconds: float
    """Wall seconds of this retriever's search for the query."""
    top_files: list[str]
    """First 10 files, best first."""
    top_symbols: list[str]
    """First 10 `path::qualname`, best first."""
    files: dict[str, float]
    """`recall@k` per file k, and `rr`."""
    symbols: dict[str, float] | None
    """`recall@k` per symbol k, and `rr`; None without gold symbols."""
    identifiers: list[str] | None = None
    """Lexical only: identifiers extracted from the query."""


class QueryRecord(_Model):
    id: str
    """Instance id."""
    source: str
    """`swebench-verified`, `swe-rebench`, `offline`, or `file`."""
    repo: str
    """owner/name."""
    base_commit: str
    """Commit the tree was checked out at."""
    created_at: str | None
    """The issue's creation time, or the base commit's date when the row has none."""
    query_chars: int
    """Length of the problem statement."""
    status: Literal["scored", "skipped", "error"]
    """`skipped` with a reason when no gold file is indexed; `error` is unmeasured."""
    reason: str | None = None
    """Why skipped or errored."""
    gold: Gold | None = None
    """Relevance from the patch."""
    index: IndexStats | None = None
    """The re-index before this query."""
    semantic: Scores | None = None
    """The code index's search."""
    lexical: Scores | None = None
    """The grep baseline."""


class WinLoss(_Model):
    wins: int
    """Queries where semantic file rr > lexical."""
    losses: int
    """Queries where semantic file rr < lexical."""
    ties: int
    """Equal file rr."""


class SummarySet(_Model):
    queries: int
    """Scored queries in the set."""
    queries_with_symbols: int
    """Scored queries with gold symbols."""
    semantic: dict[str, float | None]
    """Means of file_recall@k, file_mrr, symbol_recall@k, symbol_mrr (4 decimals)."""
    lexical: dict[str, float | None]
    """The same for the grep baseline."""
    semantic_vs_lexical_file_rr: WinLoss
    """Head to head on file rr."""


class Excluded(_Model):
    id: str
    """Instance or repository excluded."""
    reason: str
    """Why (too large, unmeasured infrastructure error...)."""


class Quality(_Model):
    queries: list[QueryRecord]
    """Per query, in run order."""
    excluded: list[Excluded]
    """Instances left out, with why."""
    summary: dict[str, SummarySet]
    """`all` plus one set per source."""


class ReplayStep(_Model):
    commit: str
    """Commit re-indexed."""
    subject: str
    """Its subject line (also used as a probe query)."""
    files_changed: int
    """Files the commit changed."""
    files_reparsed: int
    """Files the index re-embedded."""
    chunks: int
    """Chunks after the step."""
    seconds: float
    """Wall seconds of the re-index."""


class Incremental(_Model):
    repo: str
    """Repository replayed."""
    tip: str
    """Pinned tip commit."""
    commits: list[ReplayStep]
    """Each re-indexed commit, oldest first."""
    first_index_seconds: float
    """Full index of the oldest commit."""
    fresh_index_seconds: float
    """Fresh index of the tip."""
    step_seconds_p50: float
    """Median re-index step (nearest rank)."""
    step_seconds_max: float
    """Slowest re-index step."""
    only_in_incremental: int
    """Stale chunks."""
    only_in_fresh: int
    """Missing chunks."""
    duplicate_count_mismatches: int
    """Keys present a different number of times."""
    min_vector_cosine: float | None
    """Lowest cosine between matched vectors (None when nothing matched)."""
    correct: bool
    """No stale, missing or mismatched chunks and min cosine >= 0.999."""
    probe_identical_top10: int
    """Subject probes whose top 10 are identical in both indexes."""
    probe_mean_overlap_at_10: float
    """Mean overlap@10 of the probes."""


class Phase(_Model):
    outcome: Outcome
    """correct, raised (loud), silent-empty or silent-wrong."""
    overlap_at_10: float | None = None
    """Mean share of baseline results found (silent-wrong only)."""
    detail: str | None = None
    """The exception raised, when raised."""


class Scenario(_Model):
    name: str
    """Damage scenario."""
    search: Phase
    """Searching the damaged cache."""
    reindex: Phase
    """Re-indexing, then searching."""
    passed: bool
    """No phase was silent."""
    recovers: bool
    """The reindex phase is correct."""


class Hazard(_Model):
    name: str
    """Tree hazard."""
    status: HazardStatus
    """pass, fail, or not-run when the platform cannot build it (never a pass)."""
    detail: str
    """What was checked or why it did not run."""


class Robustness(_Model):
    target: str
    """The tree indexed (repo and folder)."""
    probes: list[str]
    """Fixed probe questions."""
    scenarios: list[Scenario]
    """The 12 cache-damage scenarios."""
    trees: list[Hazard]
    """The 7 hostile-tree hazards."""
    totals: dict[str, int]
    """passed, failed, not_run over scenarios and hazards."""


class ScaleRepo(_Model):
    repo: str
    """owner/name."""
    commit: str
    """Pinned commit."""
    files: int
    """Files indexed."""
    lines: int
    """Lines in them."""
    chunks: int
    """Chunks."""
    chunks_dropped: int
    """Chunks whose embedding failed."""
    files_discovered: int
    """Files discovery listed."""
    discovery_truncated: bool
    """A scan limit was hit."""
    index_seconds: float
    """Fresh index wall seconds."""
    chunks_per_second: float
    """chunks / index_seconds."""
    peak_rss_mb: float
    """Peak resident memory of this process during the index."""
    rss_growth_mb: float
    """Peak minus resident memory before indexing."""
    index_bytes: int
    """Cache folder size."""
    cold_query_ms: float
    """A new index instance: cache load plus first query."""
    query_p50_ms: float
    """Nearest-rank median over the latency queries."""
    query_p95_ms: float
    """Nearest-rank 95th percentile."""
    wall_seconds: float | None = None
    """Checkout, index, cold query and latency queries together (None in older files)."""


class Scale(_Model):
    repos: list[ScaleRepo]
    """One entry per repository measured."""
    errors: list[Excluded]
    """Repositories that could not be obtained or indexed: unmeasured, never a score."""


class QualitySummary(_Model):
    summary: dict[str, SummarySet]
    """`all` plus one set per source."""
    excluded: list[Excluded]
    """Instances left out or unmeasured, with why."""
    scored: int
    """Queries scored."""
    skipped: int
    """Queries skipped (no gold file in the index)."""
    unmeasured: int
    """Queries lost to infrastructure errors (never scores)."""
    vectors_from_cache: int | None = None
    """Chunk vectors of all re-indexes served by the embedding cache; None when no query
    recorded it (older files)."""
    vectors_computed: int | None = None
    """Chunk vectors of all re-indexes the embedder computed."""


class CodeSummary(_Model):
    """The summary of a code-retrieval run (the envelope's `summary`)."""

    parts: list[str]
    """Parts the run asked for, in run order."""
    quality: QualitySummary | None = None
    """Quality part, when asked."""
    incremental: Incremental | None = None
    """Incremental replay, when measured."""
    robustness: Robustness | None = None
    """Robustness part, when measured."""
    scale: Scale | None = None
    """Scale part, when asked."""


class CodeRetrievalResults(_Model):
    """A code-retrieval results.json before the suite engine (schema 1); read only, by the
    legacy converter, so committed baselines keep loading unedited."""

    schema_version: Literal[1] = Field(1, alias="schema")
    """Schema version of this file."""
    component: Literal["code"] = "code"
    """Always `code`."""
    suite: str
    """offline, pr, nightly, scale or custom."""
    parts: list[str]
    """Parts asked for, in run order."""
    query_set: str
    """sha256 of the sorted instance ids (gates refuse different sets)."""
    started_at: str
    """ISO-8601 start time."""
    duration_s: float | None = None
    """Wall seconds, when finished."""
    environment: Environment
    """Where and with what it ran."""
    config: Config
    """The suite's constants."""
    quality: Quality | None = None
    """Quality part."""
    incremental: Incremental | None = None
    """Incremental replay part."""
    robustness: Robustness | None = None
    """Robustness part."""
    scale: Scale | None = None
    """Scale part."""
    error: str | None = None
    """The exception that stopped the run, if any (finished parts are kept)."""
    comparison: dict[str, object] | None = None
    """The gate's verdict when --gate was given."""


RESULT_MODELS = (CodeSummary,)
