"""The only importer of the private extension `gaia_eval._core`.

Every other module calls the typed wrappers here. Wrappers validate arguments at the
boundary (the binding validates again, so a direct caller cannot crash the interpreter)
and convert to the plain Python / NumPy types the rest of the package uses.
Each area keeps to its own section below.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np
import numpy.typing as npt

try:
    from gaia_eval import _core
except ImportError as err:  # pragma: no cover - only without a built extension
    err.add_note(
        "gaia_eval's native core is not built. From a checkout run `nox -s native` "
        "(or `pip install -e .`); installed wheels ship it."
    )
    raise

# ---- text ------------------------------------------------------------------------------


def normalize_whitespace(text: str) -> tuple[str, npt.NDArray[np.int64]]:
    """Collapse every whitespace run (as `str.isspace`) to one space and trim.

    Returns the normalized text and, for each of its characters, the index of the
    character in `text` it came from (code points, as Python indexes a str).
    """
    given: object = text  # callers outside mypy's reach may pass anything
    if not isinstance(given, str):
        msg = f"text must be str, not {type(given).__name__}"
        raise TypeError(msg)
    try:
        norm, offsets = _core.normalize_whitespace(text)
    except TypeError:
        # Lone surrogates cannot cross into UTF-32. They are not whitespace, so a
        # placeholder keeps the collapse and the offsets identical; the characters
        # themselves are then taken back from the input.
        safe = text.encode("utf-32-le", "surrogatepass").decode("utf-32-le", "replace")
        _, offsets = _core.normalize_whitespace(safe)
        norm = "".join(text[i] for i in offsets.tolist())
    return norm, offsets


# ---- metrics ---------------------------------------------------------------------------
# Ranking metrics with trec_eval semantics (recall_k, P_k, recip_rank, ndcg_cut_k):
# - relevant means grade > 0; P@k divides by k even when fewer than k docs were ranked;
#   recall@k divides by the number of relevant docs; nDCG@k uses the grade as gain and
#   1/log2(rank + 1) as discount, over the ideal DCG of the judged grades sorted
#   descending and cut at k; rr is 1/rank of the first relevant doc in the whole ranking.
# - A ranking row ends at its first negative id (-1 padding, as FAISS returns).
# - A doc id repeated in one ranking keeps its rank slot, but only its first occurrence
#   can count (later copies are non-relevant): repeating a hit never raises a score.
# - A query with no relevant judgement raises ValueError naming the query.

Int64Array = npt.NDArray[np.int64]
Float64Array = npt.NDArray[np.float64]


def _cutoffs(ks: Sequence[int] | Int64Array) -> Int64Array:
    out: list[int] = []
    for i, k in enumerate(ks):
        if isinstance(k, bool) or not isinstance(k, int | np.integer):
            msg = f"ks[{i}] must be an int, not {type(k).__name__}"
            raise TypeError(msg)
        if k < 1:
            msg = f"ks[{i}] = {k}: every cutoff k must be >= 1"
            raise ValueError(msg)
        out.append(int(k))
    return np.asarray(out, dtype=np.int64)


@dataclass(frozen=True)
class RankingScores:
    """Per-query ranking metrics; row i is query i (or `qids[i]` when named)."""

    ks: tuple[int, ...]
    """The cutoffs, in the column order of recall, precision and ndcg."""
    recall: Float64Array
    """(Q, len(ks)): relevant docs in the top k / all relevant docs."""
    precision: Float64Array
    """(Q, len(ks)): relevant docs in the top k / k."""
    ndcg: Float64Array
    """(Q, len(ks)): DCG@k / ideal DCG@k."""
    rr: Float64Array
    """(Q,): 1 / rank of the first relevant doc, 0 when none was ranked."""
    qids: tuple[str, ...] | None = None
    """Query ids in row order, when the input named them."""

    def summary(self) -> dict[str, float]:
        """Means over queries: recall@k, P@k, ndcg@k for each k, and mrr."""
        if self.rr.size == 0:
            msg = "no queries to summarise"
            raise ValueError(msg)
        out: dict[str, float] = {}
        for j, k in enumerate(self.ks):
            out[f"recall@{k}"] = float(self.recall[:, j].mean())
            out[f"P@{k}"] = float(self.precision[:, j].mean())
            out[f"ndcg@{k}"] = float(self.ndcg[:, j].mean())
        out["mrr"] = float(self.rr.mean())
        return out

    def per_query(self) -> dict[str, dict[str, float]]:
        """{qid: {"recall@k": .., "P@k": .., "ndcg@k": .., "rr": ..}} (row index if unnamed)."""
        names = self.qids if self.qids is not None else tuple(str(i) for i in range(len(self.rr)))
        out: dict[str, dict[str, float]] = {}
        for i, qid in enumerate(names):
            row: dict[str, float] = {}
            for j, k in enumerate(self.ks):
                row[f"recall@{k}"] = float(self.recall[i, j])
                row[f"P@{k}"] = float(self.precision[i, j])
                row[f"ndcg@{k}"] = float(self.ndcg[i, j])
            row["rr"] = float(self.rr[i])
            out[qid] = row
        return out


@dataclass(frozen=True)
class FirstHitScores:
    """Per-query hit@k and reciprocal rank from first-hit ranks."""

    ks: tuple[int, ...]
    """The cutoffs, in the column order of recall."""
    recall: Float64Array
    """(Q, len(ks)): 1.0 when the first hit is within the top k, else 0.0."""
    rr: Float64Array
    """(Q,): 1 / first-hit rank, 0 for a miss."""

    def summary(self) -> dict[str, float]:
        """Means over queries: recall@k for each k (share of queries hit within k), and mrr."""
        if self.rr.size == 0:
            msg = "no queries to summarise"
            raise ValueError(msg)
        out = {f"recall@{k}": float(self.recall[:, j].mean()) for j, k in enumerate(self.ks)}
        out["mrr"] = float(self.rr.mean())
        return out


def ranking_metrics(
    ranked: Int64Array,
    qrel_offsets: Int64Array,
    qrel_docs: Int64Array,
    qrel_grades: Int64Array,
    ks: Sequence[int] | Int64Array,
) -> RankingScores:
    """recall@k, P@k, nDCG@k and reciprocal rank of Q queries (trec_eval semantics).

    `ranked` is int64 (Q, depth), best first, padded with -1 (FAISS's search output
    shape). The judgements are CSR: query q's are `qrel_docs[qrel_offsets[q]:
    qrel_offsets[q + 1]]` with grades `qrel_grades` at the same positions
    (`qrels_to_csr` builds them). Raises TypeError on a wrong dtype and ValueError on
    bad shapes or values, naming the argument.
    """
    cut = _cutoffs(ks)
    recall, precision, ndcg, rr = _core.ranking_metrics(
        ranked, qrel_offsets, qrel_docs, qrel_grades, cut
    )
    return RankingScores(tuple(cut.tolist()), recall, precision, ndcg, rr)


def first_hit_metrics(
    ranks: Sequence[int | None] | Int64Array, ks: Sequence[int] | Int64Array
) -> FirstHitScores:
    """hit@k (recall@k with one relevant item) and reciprocal rank from first-hit ranks.

    `ranks[i]` is the 1-based rank of query i's first hit; None or 0 means a miss.
    """
    cut = _cutoffs(ks)
    if isinstance(ranks, np.ndarray):
        arr = ranks
    else:
        values: list[int] = []
        for i, r in enumerate(ranks):
            if r is None:
                values.append(0)
            elif isinstance(r, bool) or not isinstance(r, int | np.integer):
                msg = f"ranks[{i}] must be an int or None, not {type(r).__name__}"
                raise TypeError(msg)
            else:
                values.append(int(r))
        arr = np.asarray(values, dtype=np.int64)
    recall, rr = _core.first_hit_metrics(arr, cut)
    return FirstHitScores(tuple(cut.tolist()), recall, rr)


# ---- evidence --------------------------------------------------------------------------

EvidenceDocument = _core.EvidenceDocument
"""A document's normalized text and "[Page N]" markers, held natively (see evidence.hpp)."""


def evidence_document(extracted: str) -> _core.EvidenceDocument:
    """Normalize `extracted` once and find its page markers; later calls reuse the result."""
    return _core.EvidenceDocument(extracted)  # the binding rejects a non-str


def evidence_locate(
    doc: _core.EvidenceDocument, chunks: list[str], pieces: list[bool]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Locate chunks (document order) by the cursor walk: start and end of each chunk's
    span in the normalized text, both -1 where a chunk is not found.

    `pieces[i]` marks chunk i as a piece of a window split to fit the embedder; empty: none.
    """
    if pieces and len(pieces) != len(chunks):
        msg = f"pieces has {len(pieces)} entries for {len(chunks)} chunks"
        raise ValueError(msg)
    # The binding checks the list and each chunk (TypeError naming chunks[i]) as it reads.
    return doc.locate(chunks, [bool(s) for s in pieces])


def evidence_resolve(
    doc: _core.EvidenceDocument, quote: str, page: int | None, near: str | None
) -> tuple[int, int, int]:
    """Resolve a quote: (status, start, end); status 0 ok, 1 empty quote, 2 unknown page,
    3 near hint not in the document, 4 quote not found (start = end = -1 unless ok)."""
    if page is not None and (isinstance(page, bool) or not isinstance(page, int) or page < 1):
        msg = f"page must be an int >= 1, not {page!r}"
        raise ValueError(msg)
    return doc.resolve(quote, page or 0, near or "")


def evidence_resolve_many(
    doc: _core.EvidenceDocument,
    quotes: list[str],
    pages: list[int | None],
    nears: list[str | None],
) -> list[tuple[int, int, int]]:
    """evidence_resolve for each (quote, page, near); the quotes with neither page nor
    hint are searched in one pass over the document (many labels of one long document)."""
    if not len(quotes) == len(pages) == len(nears):
        msg = f"{len(quotes)} quotes, {len(pages)} pages and {len(nears)} nears: lengths differ"
        raise ValueError(msg)
    for page in pages:
        if page is not None and (isinstance(page, bool) or not isinstance(page, int) or page < 1):
            msg = f"page must be an int >= 1, not {page!r}"
            raise ValueError(msg)
    return doc.resolve_many(quotes, [p or 0 for p in pages], [n or "" for n in nears])


def evidence_find(hay: str, needle: str, start: int = 0, end: int | None = None) -> int:
    """First index of `needle` wholly inside hay[start:end] (no negative indexing), or -1.

    Unlike str.find, an empty needle is never found: an empty label matches nothing.
    """
    return _core.evidence_find(hay, needle, start, len(hay) if end is None else end)


def evidence_uses_avx2() -> bool:
    """Whether the evidence kernel runs its AVX2 block paths here (GAIA_EVAL_NO_AVX2=1 off)."""
    return _core.evidence_uses_avx2()


# ---- grep ------------------------------------------------------------------------------


class GrepHits(NamedTuple):
    """Whole-word hits of several words, one row per (word, file, line)."""

    word: npt.NDArray[np.int32]
    """Index of the word in the query list."""
    file: npt.NDArray[np.int32]
    """Index of the file in the list the index was built from."""
    line: npt.NDArray[np.int32]
    """1-based line number."""
    hits: npt.NDArray[np.int32]
    """Occurrences of the word on that line."""


class GrepIndex:
    """Whole-word inverted index over a tree's files, built once (git grep -w -F words).

    A word is a maximal run of ASCII letters, digits and '_' (git's definition); matching is
    case-sensitive. Files with a NUL byte in their first 8000 bytes are skipped as binary,
    as `git grep -I` does.
    """

    TEXT = 0
    """`kinds()` value of a file whose words are indexed."""
    BINARY = 1
    """`kinds()` value of a file skipped as binary."""
    UNREADABLE = 2
    """`kinds()` value of a path `from_paths` could not read as a regular file."""

    def __init__(self, contents: list[bytes]) -> None:
        given: object = contents  # callers outside mypy's reach pass anything
        if not isinstance(given, list):
            msg = f"contents must be a list of bytes, not {type(given).__name__}"
            raise TypeError(msg)
        self._index = _core.GrepIndex(contents)

    @classmethod
    def from_paths(cls, paths: Sequence[str | bytes | os.PathLike[str]]) -> GrepIndex:
        """Read and index each path in C++ (one reused buffer, GIL released).

        Equals `GrepIndex([Path(p).read_bytes() for p in paths])` where every read
        succeeds; a path that cannot be opened or read, or is not a regular file, is
        indexed as an empty file and marked UNREADABLE in `kinds()`, so file indices
        still line up with `paths`. ValueError for an empty path or one with a NUL byte.
        """
        given: object = paths
        if isinstance(given, (str, bytes)) or not isinstance(given, Sequence):
            msg = f"paths must be a list of str, bytes or os.PathLike, not {type(given).__name__}"
            raise TypeError(msg)
        items: list[str | bytes] = []
        for i, p in enumerate(given):
            if type(p) is str:  # the common case, passed on as is (cheaper than fspath)
                items.append(p)
            elif isinstance(p, (str, bytes, os.PathLike)):
                items.append(os.fspath(p))
            else:
                msg = f"paths[{i}] must be str, bytes or os.PathLike, not {type(p).__name__}"
                raise TypeError(msg)
        index = cls.__new__(cls)
        index._index = _core.GrepIndex.from_paths(items)
        return index

    @property
    def num_files(self) -> int:
        return int(self._index.num_files)

    @property
    def num_occurrences(self) -> int:
        """Word occurrences indexed (binary files excluded)."""
        return int(self._index.num_occurrences)

    def binary_mask(self) -> npt.NDArray[np.bool_]:
        """True for each file that was skipped as binary."""
        return self._index.binary_mask()

    def kinds(self) -> npt.NDArray[np.uint8]:
        """Per file: TEXT, BINARY or UNREADABLE (the last only from `from_paths`)."""
        return self._index.kinds()

    def query(self, words: list[str]) -> GrepHits:
        """Hits of every word, ordered by word, file, line; ValueError for a non-word."""
        given: object = words
        if not isinstance(given, list) or not all(isinstance(w, str) for w in given):
            msg = "words must be a list of str"
            raise TypeError(msg)
        return GrepHits(*self._index.query(list(words)))


# ---- scrub -----------------------------------------------------------------------------
# Imported here, not at the top, so each area's section stays self-contained.

from gaia_eval.core.errors import LeakError  # noqa: E402


class ScrubFinding(NamedTuple):
    """One redaction: its kind and where the redacted bytes were in the input (never the
    value itself)."""

    kind: str
    offset: int
    length: int


def _as_bytes(data: object, name: str) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    msg = f"{name} must be bytes, not {type(data).__name__}"
    raise TypeError(msg)


def _known_bytes(value: bytes | str) -> bytes:
    if isinstance(value, str):
        # Environment values carry undecodable bytes as surrogate escapes.
        return value.encode("utf-8", "surrogateescape")
    return _as_bytes(value, "known value")


def _leak(err: Exception) -> LeakError:
    return LeakError(str(err))


def scrub_kinds() -> tuple[str, ...]:
    """Every redaction kind, in rule order ("known-secret", "private-key", "sk", ...)."""
    return tuple(_core.scrub_kinds())


def scrub_known_value_ok(value: bytes | str) -> bool:
    """Whether a value counts as a known secret: 12..16384 bytes, not starting with '/',
    '~' or '.', no ASCII whitespace."""
    return bool(_core.scrub_known_value_ok(_known_bytes(value)))


class ScrubStream:
    """Streaming scrubber: `feed` returns the scrubbed bytes decided so far (always
    re-checked), `finish` the rest. A secret split across feeds is still found; memory
    stays bounded by a carry of about 40 KiB per round."""

    def __init__(self, scrubber: Scrubber) -> None:
        self._stream = _core.ScrubStream(scrubber._core)

    def feed(self, data: bytes | bytearray | memoryview) -> bytes:
        try:
            return self._stream.feed(_as_bytes(data, "data"))
        except _core.ScrubLeakError as err:
            raise _leak(err) from None

    def finish(self) -> bytes:
        try:
            return self._stream.finish()
        except _core.ScrubLeakError as err:
            raise _leak(err) from None

    def take_findings(self) -> list[ScrubFinding]:
        """Findings since the last call, offsets in the whole input stream."""
        return [ScrubFinding(*f) for f in self._stream.take_findings()]


class Scrubber:
    """The native secret scanner with its known values fixed at construction.

    `skip` names kinds to leave unredacted (the re-check still sees them, so a skipped
    kind present in the text raises LeakError: that is how the refusal is tested).
    """

    def __init__(self, known: Iterable[bytes | str] = (), skip: Iterable[str] = ()) -> None:
        kinds = set(scrub_kinds())
        skip_list = list(skip)
        for kind in skip_list:
            if kind not in kinds:
                msg = f"skip: unknown scrub kind {kind!r}; known kinds: {', '.join(sorted(kinds))}"
                raise ValueError(msg)
        self._core = _core.Scrubber([_known_bytes(v) for v in known], skip_list)

    @property
    def known_count(self) -> int:
        """How many distinct known values qualified."""
        return int(self._core.known_count)

    def scrub(self, data: bytes | bytearray | memoryview) -> bytes:
        """Redact every secret; raises LeakError if one survives the re-check."""
        try:
            out, _ = self._core.scrub(_as_bytes(data, "data"), False)
        except _core.ScrubLeakError as err:
            raise _leak(err) from None
        return out

    def scrub_report(
        self, data: bytes | bytearray | memoryview
    ) -> tuple[bytes, list[ScrubFinding]]:
        """The scrubbed bytes and what was redacted (offsets into `data`)."""
        try:
            out, found = self._core.scrub(_as_bytes(data, "data"), True)
        except _core.ScrubLeakError as err:
            raise _leak(err) from None
        return out, [ScrubFinding(*f) for f in found or ()]

    def find(self, data: bytes | bytearray | memoryview) -> list[ScrubFinding]:
        """One pass of every rule without redaction: the re-check on its own."""
        return [ScrubFinding(*f) for f in self._core.find(_as_bytes(data, "data"))]

    def stream(self) -> ScrubStream:
        """A new streaming scrubber with this configuration."""
        return ScrubStream(self)


# ---- resample --------------------------------------------------------------------------
# Paired resampling of mean(current - baseline) over items, defined so a pure-Python oracle
# reproduces it bit for bit (csrc/core/resample.hpp has the full definition): a splitmix64
# generator seeded with `seed`, indices by multiply-shift, 64 signs per draw, top bit first.
# With `clusters` (an item index per row, 0 .. k-1 without gaps) an item's repeats stay
# together: each item contributes the mean of its rows' differences, and items (not rows)
# are resampled, so run-to-run noise of one item is not counted as more items.

MAX_RESAMPLES = 10_000_000


class PairedInterval(NamedTuple):
    estimate: float
    """mean(current - baseline) over items."""
    low: float
    high: float


class PairedTest(NamedTuple):
    estimate: float
    """mean(current - baseline) over items."""
    p_value: float
    """Two-sided: (1 + resamples at least as extreme) / (1 + resamples)."""


def _paired_arrays(
    baseline: Sequence[float] | Float64Array,
    current: Sequence[float] | Float64Array,
    clusters: Sequence[int] | Int64Array | None,
    resamples: int,
    seed: int,
) -> tuple[Float64Array, Float64Array, Int64Array | None]:
    if isinstance(resamples, bool) or not isinstance(resamples, int):
        msg = f"resamples must be an int, not {type(resamples).__name__}"
        raise TypeError(msg)
    if not 1 <= resamples <= MAX_RESAMPLES:
        msg = f"resamples must be within [1, {MAX_RESAMPLES}], got {resamples}"
        raise ValueError(msg)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        msg = f"seed must be an int within [0, 2**64), got {seed!r}"
        raise ValueError(msg)
    arrays: list[Float64Array] = []
    for name, values in (("baseline", baseline), ("current", current)):
        try:
            arr = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError) as err:
            msg = f"{name} must be numbers: {err}"
            raise ValueError(msg) from None
        if arr.ndim != 1:
            msg = f"{name} must be 1-dimensional, got {arr.ndim} dimensions"
            raise ValueError(msg)
        if arr.size == 0:
            msg = f"{name} must not be empty"
            raise ValueError(msg)
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            msg = f"{name}[{int(bad[0])}] is not a finite number ({arr[bad[0]]})"
            raise ValueError(msg)
        arrays.append(np.ascontiguousarray(arr))
    if arrays[0].size != arrays[1].size:
        msg = (
            f"current has {arrays[1].size} values but baseline has {arrays[0].size}; "
            "they must be paired (equal lengths)"
        )
        raise ValueError(msg)
    groups: Int64Array | None = None
    if clusters is not None:
        groups = np.ascontiguousarray(np.asarray(clusters, dtype=np.int64))
        if groups.shape != arrays[0].shape:
            msg = f"clusters has {groups.size} entries but baseline has {arrays[0].size}"
            raise ValueError(msg)
    return arrays[0], arrays[1], groups


def paired_bootstrap(
    baseline: Sequence[float] | Float64Array,
    current: Sequence[float] | Float64Array,
    *,
    clusters: Sequence[int] | Int64Array | None = None,
    resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    method: Literal["percentile", "bca"] = "percentile",
) -> PairedInterval:
    """Bootstrap interval of mean(current - baseline) over items: the percentile interval,
    or BCa (bias-corrected and accelerated) from the same resamples."""
    if not 0 < confidence < 1:
        msg = f"confidence must be within (0, 1), got {confidence}"
        raise ValueError(msg)
    if method not in ("percentile", "bca"):
        msg = f"method must be 'percentile' or 'bca', got {method!r}"
        raise ValueError(msg)
    a, b, groups = _paired_arrays(baseline, current, clusters, resamples, seed)
    return PairedInterval(
        *_core.paired_bootstrap(a, b, groups, resamples, seed, confidence, method == "bca")
    )


def paired_sign_flip(
    baseline: Sequence[float] | Float64Array,
    current: Sequence[float] | Float64Array,
    *,
    clusters: Sequence[int] | Int64Array | None = None,
    resamples: int = 10_000,
    seed: int = 0,
) -> PairedTest:
    """Two-sided sign-flip permutation test of mean(current - baseline) = 0 over items."""
    a, b, groups = _paired_arrays(baseline, current, clusters, resamples, seed)
    return PairedTest(*_core.paired_sign_flip(a, b, groups, resamples, seed))
