"""Map retrieved chunks back to labelled evidence (docs/retrieval-rag.md).

A chunker re-joins words with single spaces, so a chunk is not a slice of the extracted
text; it is a substring of the *normalized* text (whitespace runs collapsed, ends
trimmed). Every offset here is a code-point offset into that normalized text. The work
(normalization, the cursor walk, substring search, page lookup) runs in the native
evidence kernel; this module gives it names, dataclasses and label errors.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple, overload

import numpy as np
import numpy.typing as npt

from gaia_eval import _native
from gaia_eval.core.errors import GaiaEvalError, InvalidInputError

UNLOCATED_LIMIT = 0.01
"""Abort when more than this share of chunks cannot be found in their documents."""


class LabelError(InvalidInputError):
    """An evidence label does not match its document; the message names question and doc."""


class UnlocatedError(GaiaEvalError):
    """Too many chunks cannot be located: the chunker no longer matches the extracted text,
    so every score would be wrong and the run stops."""


class LocatedChunk(NamedTuple):
    """Where a chunk sits in its document's normalized text.

    A named tuple: equal to the (start, end, pages) tuples the oracles and the benchmark
    build, and cheap to make each time `LocatedChunks` is asked for a chunk.
    """

    start: int
    end: int
    pages: tuple[int, ...]
    """Page numbers the span touches; empty for an unpaged document."""


@dataclass(frozen=True)
class ResolvedEvidence:
    """One evidence entry, resolved against its document.

    A quote resolves to [start, end) (and keeps its page, if labelled); page-only evidence
    has start = end = None and a page; document-level evidence (BEIR relevance) has all
    three None and counts any chunk of the document as a hit.
    """

    doc: str
    start: int | None
    end: int | None
    page: int | None

    @property
    def document_level(self) -> bool:
        return self.start is None and self.page is None


class DocumentText:
    """A document's extracted text, normalized once, with its "[Page N]" markers."""

    def __init__(self, doc: str, extracted: str) -> None:
        self.doc = doc
        self._native = _native.evidence_document(extracted)
        self.paged = self._native.paged()
        """True when the text has page markers (a PDF); page labels need this."""

    @cached_property
    def markers(self) -> tuple[tuple[int, int], ...]:
        """(offset, page number) of every marker, in order of offset (built on first use:
        a long PDF has thousands and the kernel keeps its own)."""
        return tuple(self._native.markers())

    @cached_property
    def normalized(self) -> str:
        """The normalized text (built on first use: the kernel does not need it)."""
        return self._native.normalized()

    def __len__(self) -> int:
        return len(self._native)

    def pages_of(self, start: int, end: int) -> tuple[int, ...]:
        """Pages of the span [start, end): from start's page to (end - 1)'s page.

        Text before the first marker belongs to the first page; () when unpaged.
        """
        if not 0 <= start <= end <= len(self):
            msg = f"span [{start}, {end}) is outside {self.doc} (length {len(self)})"
            raise ValueError(msg)
        return self._native.pages_of(start, end)

    def page_segment(self, page: int) -> tuple[int, int]:
        """[start, end) of page `page`'s text: its marker up to the next one (or the end)."""
        if not self.paged:
            msg = (
                f"document {self.doc} has no [Page N] markers, so a label cannot name page "
                f"{page}; remove the page from the label (or extract the document as a PDF)"
            )
            raise LabelError(msg)
        seg = self._native.page_segment(page)
        if seg is None:
            numbers = [n for _, n in self.markers]
            msg = (
                f"document {self.doc} has no page {page} (its pages run "
                f"{min(numbers)}-{max(numbers)}); fix the label's page"
            )
            raise LabelError(msg)
        return seg


class LocatedChunks(Sequence[LocatedChunk | None]):
    """One document's located chunks in chunk order: a LocatedChunk, or None for a chunk
    that could not be located.

    The spans stay in two integer arrays and a LocatedChunk (with its pages) is made when
    one is asked for: a run looks at the few chunks retrieval returns, not at every chunk
    of every document, so thousands of objects per document are never built. Equal to a
    list of the same entries.
    """

    __slots__ = ("_doc", "_ends", "_starts")

    def __init__(
        self, doc: DocumentText, starts: npt.NDArray[np.int64], ends: npt.NDArray[np.int64]
    ) -> None:
        self._doc = doc
        self._starts = starts
        self._ends = ends

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, i: int) -> LocatedChunk | None: ...
    @overload
    def __getitem__(self, i: slice) -> list[LocatedChunk | None]: ...
    def __getitem__(self, i: int | slice) -> LocatedChunk | list[LocatedChunk | None] | None:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        start = int(self._starts[i])  # IndexError (and negative indices) as a list's
        if start < 0:
            return None
        end = int(self._ends[i])
        return LocatedChunk(start, end, self._doc._native.pages_of(start, end))

    @property
    def unlocated(self) -> int:
        """How many chunks could not be located."""
        return int(np.count_nonzero(self._starts < 0))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LocatedChunks | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, like a list

    def __repr__(self) -> str:
        return f"LocatedChunks({list(self)!r})"


def locate_chunks(
    doc: DocumentText, chunks: list[str], split: Collection[int] = frozenset()
) -> LocatedChunks:
    """Locate one document's chunks, given in document order (chunk index order).

    The walk keeps a cursor at the last located chunk's start; a match before it is
    repeated text elsewhere and does not count. `split` holds the indices of chunks that
    are pieces of a window cut to fit the embedder: the chunk after such a piece may also
    match from the start of that run of pieces (with two pieces, the chunk before last),
    provided the match starts before the cursor and ends after it.
    None marks an unlocated chunk (see check_unlocated).
    """
    pieces = [i in split for i in range(len(chunks))] if split else []
    starts, ends = _native.evidence_locate(doc._native, chunks, pieces)
    return LocatedChunks(doc, starts, ends)


_EXTRACTOR_HINT = "or, if the label was right before, the extractor's output changed"


class EvidenceLabel(NamedTuple):
    """One labelled evidence entry of a question, as the dataset gives it."""

    question_id: str
    doc: str
    quote: str | None
    page: int | None
    near: str | None


def resolve_evidence(
    doc: DocumentText,
    *,
    quote: str | None,
    page: int | None,
    near: str | None,
    question_id: str,
) -> ResolvedEvidence:
    """Resolve one evidence entry of question `question_id` against its document.

    A quote is searched for (normalized) within the labelled page's segment when a page
    is given, else in the whole document, starting at the `near` hint when there is one.
    Page-only evidence needs the page to exist. Neither quote nor page: document level.
    """
    label = EvidenceLabel(question_id, doc.doc, quote, page, near)
    return resolve_labels({doc.doc: doc}, [label])[0]


def resolve_labels(
    texts: Mapping[str, DocumentText], labels: Sequence[EvidenceLabel]
) -> list[ResolvedEvidence]:
    """resolve_evidence for many labels at once, in order.

    The quotes of one document go to the kernel together, so those searched in the whole
    document (no page, no hint) share one pass over its text instead of one pass each.
    Every label is checked: the first malformed one (page, hint without quote) raises,
    then the first quote that is not in its document. `texts` must hold every label's doc.
    """
    for label in labels:
        _check_label(texts[label.doc], label)
    by_doc: dict[str, list[int]] = defaultdict(list)
    for k, label in enumerate(labels):
        if label.quote is not None:
            by_doc[label.doc].append(k)
    found: dict[int, tuple[int, int, int]] = {}
    for doc_id, ks in by_doc.items():
        statuses = _native.evidence_resolve_many(
            texts[doc_id]._native,
            [labels[k].quote or "" for k in ks],
            [labels[k].page for k in ks],
            [labels[k].near for k in ks],
        )
        found.update(zip(ks, statuses, strict=True))
    out: list[ResolvedEvidence] = []
    for k, label in enumerate(labels):
        if label.quote is None:
            out.append(ResolvedEvidence(label.doc, None, None, label.page))
            continue
        status, start, end = found[k]
        if status != 0:
            raise _label_error(label, status)
        out.append(ResolvedEvidence(label.doc, start, end, label.page))
    return out


def _where(label: EvidenceLabel) -> str:
    return f"question {label.question_id}, document {label.doc}"


def _check_label(doc: DocumentText, label: EvidenceLabel) -> None:
    """The checks that need no search: a hint needs a quote, a page must exist."""
    page = label.page
    if label.quote is None and label.near is not None:
        msg = f"{_where(label)}: evidence has `near` but no `quote`; add the quote or drop near"
        raise LabelError(msg)
    if page is not None:
        if isinstance(page, bool) or not isinstance(page, int) or page < 1:
            msg = f"{_where(label)}: evidence page {page!r} is not a page number; pages start at 1"
            raise LabelError(msg)
        try:
            doc.page_segment(page)
        except LabelError as err:
            raise LabelError(f"{_where(label)}: {err}") from None


def _label_error(label: EvidenceLabel, status: int) -> LabelError:
    """The error for a kernel status other than 0 (found)."""
    where = _where(label)
    quote = label.quote or ""
    shown = quote if len(quote) <= 80 else quote[:77] + "..."
    in_page = f" on page {label.page}" if label.page is not None else ""
    if status == 1:
        return LabelError(f"{where}: evidence quote is empty; write the verbatim evidence text")
    if status == 3:
        return LabelError(
            f"{where}: near hint {label.near!r} is not in the document; fix the hint so it is "
            f"verbatim document text, {_EXTRACTOR_HINT}"
        )
    if status == 4:
        return LabelError(
            f"{where}: evidence quote {shown!r} is not in the document{in_page}; fix the "
            f"label so the quote is verbatim document text (whitespace may differ), "
            f"{_EXTRACTOR_HINT}"
        )
    # Status 2 (unknown page) is ruled out by _check_label.
    return LabelError(f"{where}: evidence cannot be resolved (kernel status {status})")


def chunk_hits(chunk_doc: str, located: LocatedChunk | None, ev: ResolvedEvidence) -> bool:
    """Does a retrieved chunk hit this evidence?

    Evidence from another document never counts. Document-level evidence: any chunk of the
    document. A quote: the chunk overlaps its span by at least half the quote's length
    (so a quote split across two overlapping chunks counts for either). Page-only
    evidence: the page is among the chunk's pages. An unlocated chunk hits nothing finer
    than the document.
    """
    if chunk_doc != ev.doc:
        return False
    if ev.document_level:
        return True
    if located is None:
        return False
    if ev.start is not None and ev.end is not None:
        overlap = min(located.end, ev.end) - max(located.start, ev.start)
        return overlap > 0 and 2 * overlap >= ev.end - ev.start
    return ev.page in located.pages


def check_unlocated(total: int, unlocated: int) -> None:
    """Stop the run when more than 1% of all chunks could not be located."""
    if total < 0 or not 0 <= unlocated <= total:
        msg = f"unlocated count {unlocated} is not within 0..{total}"
        raise ValueError(msg)
    if unlocated * 100 > total * round(UNLOCATED_LIMIT * 100):  # integers: no float edge
        msg = (
            f"{unlocated} of {total} chunks ({unlocated / total:.1%}) could not be located in "
            f"their documents' normalized text (limit {UNLOCATED_LIMIT:.0%}): the chunker no "
            "longer produces whitespace-normalized substrings of the extracted text, so every "
            "score would be wrong. Fix the chunker or extractor; the run stops here."
        )
        raise UnlocatedError(msg)
