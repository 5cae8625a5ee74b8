"""The evidence kernel against a slow pure-Python oracle, plus one test per §2.3 rule."""

from __future__ import annotations

import bisect
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaia_eval import _native
from gaia_eval.retrieval.evidence import (
    DocumentText,
    EvidenceLabel,
    LabelError,
    LocatedChunk,
    ResolvedEvidence,
    UnlocatedError,
    check_unlocated,
    chunk_hits,
    locate_chunks,
    resolve_evidence,
    resolve_labels,
)

# ---- the oracle: normalize + str.find, written as the rules read ---------------------


def o_norm(text: str) -> str:
    return " ".join(text.split())


def o_find(hay: str, needle: str, start: int, end: int) -> int:
    start, end = max(start, 0), min(end, len(hay))
    if not needle or end < start:
        return -1
    return hay.find(needle, start, end)


def o_markers(norm: str) -> list[tuple[int, int]]:
    return [(m.start(), int(m.group(1))) for m in re.finditer(r"\[Page ([0-9]{1,9})\]", norm)]


def o_page_at(markers: list[tuple[int, int]], pos: int) -> int:
    i = bisect.bisect_right([off for off, _ in markers], pos) - 1
    return markers[max(i, 0)][1]


def o_pages_of(markers: list[tuple[int, int]], start: int, end: int) -> tuple[int, ...]:
    if not markers:
        return ()
    offs = [off for off, _ in markers]
    first = max(bisect.bisect_right(offs, start) - 1, 0)
    last = max(bisect.bisect_right(offs, max(end - 1, start)) - 1, 0)
    return tuple(sorted({n for _, n in markers[first : last + 1]}))


def o_segment(markers: list[tuple[int, int]], n_chars: int, page: int) -> tuple[int, int] | None:
    for k, (off, num) in enumerate(markers):
        if num == page:
            end = markers[k + 1][0] if k + 1 < len(markers) else n_chars
            return (0 if k == 0 else off), end
    return None


def o_locate(
    norm: str, markers: list[tuple[int, int]], chunks: list[str], split: set[int]
) -> list[tuple[int, int, tuple[int, ...]] | None]:
    out: list[tuple[int, int, tuple[int, ...]] | None] = []
    cursor = 0
    run: list[int] = []  # starts of the located pieces in the current run of pieces
    for i, chunk in enumerate(chunks):
        c = o_norm(chunk)
        pos = o_find(norm, c, cursor, len(norm))
        if pos < 0 and c and (i - 1) in split and run:
            # Matches from the start of the run that start before the cursor: the first
            # that ends after the cursor, else the last one (wholly before the cursor).
            before = [a for a in range(min(run), cursor) if norm.startswith(c, a)]
            straddling = [a for a in before if a + len(c) > cursor]
            pos = straddling[0] if straddling else (before[-1] if before else -1)
        if i not in split or (i - 1) not in split:
            run = []
        if pos < 0:
            out.append(None)
            continue
        out.append((pos, pos + len(c), o_pages_of(markers, pos, pos + len(c))))
        cursor = pos
        if i in split:
            run.append(pos)
    return out


def o_resolve(norm: str, markers: list[tuple[int, int]], quote: str, page: int, near: str) -> int:
    """Start of the resolved quote, or a negative status like the kernel's."""
    q, h = o_norm(quote), o_norm(near)
    if not q:
        return -1
    seg = (0, len(norm)) if page == 0 else o_segment(markers, len(norm), page)
    if seg is None:
        return -2
    start = seg[0]
    if h:
        hint = o_find(norm, h, seg[0], seg[1])
        if hint < 0:
            hint = norm.find(h)
        if hint < 0:
            return -3
        if seg[0] <= hint < seg[1]:
            start = hint
    pos = o_find(norm, q, start, seg[1])
    if pos < 0:
        pos = o_find(norm, q, seg[0], seg[1])
    return pos if pos >= 0 else -4


# ---- property tests: kernel == oracle --------------------------------------------------

# A small alphabet makes repeats and near-misses common; a shared low byte (a, š = U+0161)
# exercises the search's byte-keyed shift table; markers make pages.
WORDS = [
    "a",
    "b",
    "ab",
    "ba",
    "\u0161",
    "a\u0161",
    "\U0001f600",
    "[Page 1]",
    "[Page 2]",
    "[Page 3]",
]
SPACES = [" ", "  ", "\n", "\t \u00a0", "\u3000"]
text_st = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SPACES)), max_size=40).map(
    lambda parts: "".join(w + s for w, s in parts)
)


@settings(deadline=None)  # CI runners are shared: time is not what is tested here
@given(
    hay=st.text(alphabet="ab\u0161\u0261 ", max_size=60),
    needle=st.text(alphabet="ab\u0161\u0261 ", max_size=5),
    start=st.integers(-3, 65),
    end=st.integers(-3, 65),
)
def test_find_matches_str_find(hay: str, needle: str, start: int, end: int) -> None:
    assert _native.evidence_find(hay, needle, start, end) == o_find(hay, needle, start, end)


@settings(deadline=None)
@given(text_st)
def test_normalized_text_and_markers_match_oracle(text: str) -> None:
    doc = DocumentText("d", text)
    norm = o_norm(text)
    assert doc.normalized == norm
    assert list(doc.markers) == o_markers(norm)
    assert doc.paged == bool(o_markers(norm))


@settings(deadline=None)
@given(text_st, st.data())
def test_pages_and_segments_match_oracle(text: str, data: st.DataObject) -> None:
    doc = DocumentText("d", text)
    norm, markers = o_norm(text), o_markers(o_norm(text))
    start = data.draw(st.integers(0, len(norm)))
    end = data.draw(st.integers(start, len(norm)))
    assert doc.pages_of(start, end) == o_pages_of(markers, start, end)
    for page in (1, 2, 3, 4):
        want = o_segment(markers, len(norm), page)
        if want is None:
            with pytest.raises(LabelError):
                doc.page_segment(page)
        else:
            assert doc.page_segment(page) == want


@settings(max_examples=300, deadline=None)
@given(text_st, st.data())
def test_locate_matches_oracle(text: str, data: st.DataObject) -> None:
    norm = o_norm(text)
    # Mostly real slices (whitespace re-spaced, as a chunker re-joins words), some noise.
    chunks: list[str] = []
    for _ in range(data.draw(st.integers(0, 8))):
        if norm and data.draw(st.booleans()):
            a = data.draw(st.integers(0, len(norm) - 1))
            b = data.draw(st.integers(a + 1, len(norm)))
            # As a chunker writes it (already normalized), or re-spaced.
            sep = data.draw(st.sampled_from([" ", "\n ", "\t"]))
            chunks.append(sep.join(norm[a:b].split(" ")))
        else:
            chunks.append(data.draw(text_st))
    split = set(data.draw(st.lists(st.integers(0, max(len(chunks) - 1, 0)), max_size=3)))
    doc = DocumentText("d", text)
    got = locate_chunks(doc, chunks, split)
    want = o_locate(norm, o_markers(norm), chunks, split)
    assert [None if g is None else (g.start, g.end, g.pages) for g in got] == want


@settings(max_examples=300, deadline=None)
@given(text_st, st.data())
def test_resolve_matches_oracle(text: str, data: st.DataObject) -> None:
    norm = o_norm(text)
    markers = o_markers(norm)

    def snippet() -> str:
        if norm and data.draw(st.booleans()):
            a = data.draw(st.integers(0, len(norm) - 1))
            return norm[a : data.draw(st.integers(a + 1, min(len(norm), a + 12)))]
        return data.draw(st.sampled_from(WORDS))

    quote = snippet()
    near = snippet() if data.draw(st.booleans()) else ""
    page = data.draw(st.sampled_from([0, 0, 1, 2, 3, 5]))
    status, start, end = _native.evidence_resolve(
        _native.evidence_document(text), quote, page or None, near or None
    )
    want = o_resolve(norm, markers, quote, page, near)
    if want >= 0:
        assert (status, start, end) == (0, want, want + len(o_norm(quote)))
    else:
        assert status == -want and start == end == -1


# ---- the rules, one by one -------------------------------------------------------------

WORDS20 = " ".join(f"w{i}" for i in range(20))


def test_cursor_walk_skips_repeats_before_the_previous_chunk() -> None:
    text = "intro REPEATED PART one middle REPEATED PART two end"
    doc = DocumentText("d", text)
    got = locate_chunks(doc, ["intro", "one middle", "REPEATED PART two"])
    assert got[1] == LocatedChunk(text.index("one"), text.index("one") + 10, ())
    # "REPEATED PART" also occurs before the cursor: the later copy is the one taken.
    assert got[2] is not None and got[2].start == text.rindex("REPEATED")


def test_a_match_only_before_the_previous_chunk_is_unlocated() -> None:
    doc = DocumentText("d", "alpha beta gamma delta")
    assert locate_chunks(doc, ["gamma delta", "alpha beta"]) == [LocatedChunk(11, 22, ()), None]


def test_whitespace_in_chunks_and_document_is_collapsed() -> None:
    doc = DocumentText("d", "  one\n\n two\tthree  ")
    assert locate_chunks(doc, ["one two", "two\n three"]) == [
        LocatedChunk(0, 7, ()),
        LocatedChunk(4, 13, ()),
    ]


def test_split_chunk_exception_searches_from_the_chunk_before_last() -> None:
    doc = DocumentText("d", WORDS20)
    head, tail = "w0 w1 w2 w3 w4", "w5 w6 w7 w8 w9"  # one window cut into two pieces
    overlap = "w3 w4 w5 w6 w7 w8 w9 w10 w11"  # starts inside the head, before the tail
    assert locate_chunks(doc, [head, tail, overlap])[2] is None
    got = locate_chunks(doc, [head, tail, overlap], split={0, 1})
    assert got[2] == LocatedChunk(WORDS20.index("w3"), WORDS20.index("w3") + len(overlap), ())


def test_split_exception_reaches_back_over_a_run_of_pieces() -> None:
    # Token-dense text can cut one window into three or more short pieces; the next
    # window's overlap may then start before the piece before last.
    doc = DocumentText("d", WORDS20)
    pieces = ["w0 w1 w2", "w3 w4 w5", "w6 w7 w8"]
    overlap = "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10"
    got = locate_chunks(doc, [*pieces, overlap], split={0, 1, 2})
    assert got[3] is not None and got[3].start == WORDS20.index("w1")
    # Pieces of an earlier run do not count: the run restarts after a whole chunk.
    got = locate_chunks(doc, ["w0 w1", "w2 w3", "w2 w3 w4 w5 w6", "w1 w2 w3 w4 w5 w6 w7"], {0, 1})
    assert got[3] is None


def test_split_exception_prefers_a_match_across_the_cursor() -> None:
    text = "a b c d e f a b c d e f g h"
    doc = DocumentText("d", text)
    # "e f a b" crosses the cursor (the tail piece "f a b c d e f g" starts at 10).
    got = locate_chunks(doc, ["a b c d e", "f a b c d e f g", "e f a b"], split={0, 1})
    assert got[2] is not None and got[2].start == text.index("e f a b")
    # A match wholly before the cursor is taken only when none crosses it: the closest.
    doc = DocumentText("d", "k q m q m z s t u v")
    got = locate_chunks(doc, ["k q m q m", "z s t u v", "q m"], split={0, 1})
    assert got[2] == LocatedChunk(6, 9, ())
    assert locate_chunks(doc, ["k q m q m", "z s t u v", "q m"], split={0})[2] is None


def test_offsets_are_code_points() -> None:
    doc = DocumentText("d", "\U0001f600 中文 text \u00e9t\u00e9")
    assert locate_chunks(doc, ["text été"]) == [LocatedChunk(5, 13, ())]


def test_pages_text_before_first_marker_is_first_page() -> None:
    doc = DocumentText("d", "cover [Page 1] one [Page 2] two [Page 3] three")
    norm = doc.normalized
    assert doc.pages_of(0, 3) == (1,)
    assert doc.pages_of(norm.index("one"), norm.index("two") + 3) == (1, 2)
    assert doc.pages_of(norm.index("three"), len(norm)) == (3,)
    # end is exclusive: a span ending right at a marker stays on the earlier page.
    assert doc.pages_of(norm.index("one"), norm.index("[Page 2]")) == (1,)
    assert doc.page_segment(1) == (0, norm.index("[Page 2]"))
    assert doc.page_segment(3) == (norm.index("[Page 3]"), len(norm))


def test_unpaged_document() -> None:
    doc = DocumentText("notes.md", "no markers here")
    assert not doc.paged and doc.pages_of(0, 5) == ()
    with pytest.raises(LabelError, match=r"notes\.md has no \[Page N\] markers"):
        doc.page_segment(1)
    with pytest.raises(LabelError, match="question q7"):
        resolve_evidence(doc, quote="markers here", page=2, near=None, question_id="q7")


def test_unknown_page_is_a_label_error() -> None:
    doc = DocumentText("m.pdf", "[Page 1] a [Page 2] b")
    with pytest.raises(LabelError, match=r"question q1, document m\.pdf: .*no page 9 .*1-2"):
        resolve_evidence(doc, quote=None, page=9, near=None, question_id="q1")
    assert resolve_evidence(doc, quote=None, page=2, near=None, question_id="q1") == (
        ResolvedEvidence("m.pdf", None, None, 2)
    )


def test_quote_resolved_within_its_page() -> None:
    doc = DocumentText("m.pdf", "[Page 1] the same words [Page 2] and the same words again")
    norm = doc.normalized
    ev = resolve_evidence(doc, quote="the  same\nwords", page=2, near=None, question_id="q")
    assert ev == ResolvedEvidence("m.pdf", norm.rindex("the same"), norm.rindex("the same") + 14, 2)
    with pytest.raises(LabelError, match="not in the document on page 1"):
        resolve_evidence(doc, quote="words again", page=1, near=None, question_id="q")


def test_near_hint_picks_the_later_copy() -> None:
    doc = DocumentText("d", "Section A: set the flag to true. Section B: set the flag to true.")
    first = resolve_evidence(
        doc, quote="set the flag to true", page=None, near=None, question_id="q"
    )
    later = resolve_evidence(
        doc, quote="set the flag to true", page=None, near="Section B", question_id="q"
    )
    assert first.start == 11 and later.start == doc.normalized.rindex("set the flag")


def test_near_after_the_quote_falls_back_to_the_segment_start() -> None:
    doc = DocumentText("d", "quote text here, then the hint")
    ev = resolve_evidence(doc, quote="quote text", page=None, near="the hint", question_id="q")
    assert ev.start == 0


def test_near_not_in_document_is_a_label_error() -> None:
    doc = DocumentText("d", "some text")
    with pytest.raises(LabelError, match="question q3, document d: near hint 'absent'"):
        resolve_evidence(doc, quote="some text", page=None, near="absent", question_id="q3")


def test_missing_quote_names_question_and_fix() -> None:
    doc = DocumentText("guide.md", "the real text")
    with pytest.raises(LabelError, match=r"question repo-007, document guide\.md.*fix the label"):
        resolve_evidence(doc, quote="invented text", page=None, near=None, question_id="repo-007")
    with pytest.raises(LabelError, match="empty"):
        resolve_evidence(doc, quote=" \n ", page=None, near=None, question_id="q")


def test_hit_rule_half_the_quote() -> None:
    ev = ResolvedEvidence("d", 100, 120, None)  # a 20-character quote
    assert chunk_hits("d", LocatedChunk(110, 200, ()), ev)  # overlap 10 = half
    assert not chunk_hits("d", LocatedChunk(111, 200, ()), ev)  # overlap 9
    assert chunk_hits("d", LocatedChunk(0, 110, ()), ev)
    assert chunk_hits("d", LocatedChunk(105, 115, ()), ev)
    assert not chunk_hits("other", LocatedChunk(100, 120, ()), ev)
    assert not chunk_hits("d", None, ev)


def test_hit_rule_pages_and_document_level() -> None:
    page_ev = ResolvedEvidence("m.pdf", None, None, 3)
    assert chunk_hits("m.pdf", LocatedChunk(0, 5, (2, 3)), page_ev)
    assert not chunk_hits("m.pdf", LocatedChunk(0, 5, (2,)), page_ev)
    assert not chunk_hits("x.pdf", LocatedChunk(0, 5, (3,)), page_ev)
    doc_ev = ResolvedEvidence("corpus-17", None, None, None)
    assert chunk_hits("corpus-17", None, doc_ev)
    assert not chunk_hits("corpus-18", LocatedChunk(0, 5, ()), doc_ev)


def test_check_unlocated_allows_one_percent() -> None:
    check_unlocated(100, 1)
    check_unlocated(0, 0)
    with pytest.raises(UnlocatedError, match="2 of 100 chunks"):
        check_unlocated(100, 2)
    with pytest.raises(UnlocatedError):
        check_unlocated(99, 1)
    with pytest.raises(ValueError, match="not within"):
        check_unlocated(3, 4)


# ---- hostile input ---------------------------------------------------------------------


def test_bad_types_raise_instead_of_crashing() -> None:
    with pytest.raises(TypeError, match="extracted must be str"):
        DocumentText("d", b"bytes")  # type: ignore[arg-type]
    doc = DocumentText("d", "text")
    with pytest.raises(TypeError, match="chunks"):
        locate_chunks(doc, [b"x"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="chunks"):
        doc._native.locate([1], [])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="pieces"):
        doc._native.locate(["a"], [True, False])
    with pytest.raises(ValueError, match="page"):
        doc._native.resolve("text", -1, "")
    with pytest.raises(ValueError, match="outside"):
        doc.pages_of(0, 99)


def test_extreme_values_do_not_crash() -> None:
    doc = DocumentText("d", "[Page 999999999] x [Page 1234567890] y \ud800 z")
    assert doc.markers == ((0, 999999999),)
    assert doc._native.pages_of(-(2**62), 2**62) == (999999999,)
    assert _native.evidence_find("abc", "b", -(2**63), 2**63 - 1) == 1
    assert _native.evidence_find("abc", "b", 2**63 - 1, -(2**63)) == -1
    assert locate_chunks(doc, ["\ud800 z", ""]) == [LocatedChunk(39, 42, (999999999,)), None]
    assert doc._native.page_segment(-5) is None


def test_bench_workload_agrees_with_python() -> None:
    """The benchmark's own check: kernel and straightforward Python give the same spans
    and quote positions on its paged workload (timings are not asserted)."""
    from gaia_eval.bench import evidence as bench

    text, chunks, quotes = bench._workload(300_000, 200, 40)
    want = bench._python(text, chunks, quotes)
    assert bench._native(text, chunks, quotes) == want
    assert bench._python(text, chunks, quotes, bench._regex) == want
    assert sum(c is not None for c in want[0]) == 200


# ---- the fast paths: long needles, many quotes, Latin-1 blocks -------------------------

# Latin-1 text (one byte per code point in CPython) goes through the block paths; every
# Latin-1 whitespace code point that str.split() knows is among the separators.
LATIN1_WORDS = ["a", "b", "ab", "ba", "abba", "\u00e9", "[Page 1]", "[Page 2]", "[", "[Page"]
LATIN1_SPACES = [" ", " ", "  ", "\n", "\t", "\r\n", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0"]
latin1_text_st = st.lists(
    st.tuples(st.sampled_from(LATIN1_WORDS), st.sampled_from(LATIN1_SPACES)), max_size=200
).map(lambda parts: "".join(w + s for w, s in parts))


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.just(""), st.sampled_from(LATIN1_SPACES)), latin1_text_st)
def test_latin1_normalization_and_markers_match_oracle(lead: str, text: str) -> None:
    doc = DocumentText("d", lead + text)
    norm = o_norm(lead + text)
    assert doc.normalized == norm
    assert list(doc.markers) == o_markers(norm)
    assert doc.paged == bool(o_markers(norm))


@settings(max_examples=200, deadline=None)
@given(
    hay=st.text(alphabet="ab \u00e9", min_size=200, max_size=3000),
    wide=st.booleans(),
    data=st.data(),
)
def test_find_long_needles_matches_str_find(hay: str, wide: bool, data: st.DataObject) -> None:
    """Needles over 256 code points take the paired-byte filter, 8-256 the q-gram table."""
    if wide:
        hay = hay.replace("\u00e9", "\u0161")  # not Latin-1: the shadow-byte path
    a = data.draw(st.integers(0, len(hay) - 8))
    b = data.draw(st.integers(a + 8, min(len(hay), a + 1200)))
    needle = hay[a:b]
    if data.draw(st.booleans()):  # a near miss: one code point changed
        k = data.draw(st.integers(0, len(needle) - 1))
        needle = needle[:k] + ("b" if needle[k] != "b" else "a") + needle[k + 1 :]
    start = data.draw(st.integers(-3, len(hay)))
    end = data.draw(st.integers(start, len(hay) + 3))
    assert _native.evidence_find(hay, needle, start, end) == o_find(hay, needle, start, end)


@settings(max_examples=200, deadline=None)
@given(st.one_of(latin1_text_st, text_st), st.data())
def test_resolve_many_matches_resolve_and_oracle(text: str, data: st.DataObject) -> None:
    """Many quotes at once (the whole-document ones share one pass) give each quote the
    answer it gets alone, which is the oracle's."""
    norm = o_norm(text)
    markers = o_markers(norm)

    def snippet() -> str:
        if norm and data.draw(st.booleans()):
            a = data.draw(st.integers(0, len(norm) - 1))
            return norm[a : data.draw(st.integers(a + 1, min(len(norm), a + 60)))]
        return data.draw(st.sampled_from(WORDS + LATIN1_WORDS + ["abab abab", "b a b a b a b"]))

    n = data.draw(st.integers(0, 8))
    quotes = [snippet() for _ in range(n)]
    pages = [data.draw(st.sampled_from([None, None, None, 1, 2, 5])) for _ in range(n)]
    nears = [snippet() if data.draw(st.integers(0, 4)) == 0 else None for _ in range(n)]
    doc = _native.evidence_document(text)
    got = _native.evidence_resolve_many(doc, quotes, pages, nears)
    assert got == [
        _native.evidence_resolve(doc, q, p, h) for q, p, h in zip(quotes, pages, nears, strict=True)
    ]
    for (status, start, end), q, p, h in zip(got, quotes, pages, nears, strict=True):
        want = o_resolve(norm, markers, q, p or 0, h or "")
        if want >= 0:
            assert (status, start, end) == (0, want, want + len(o_norm(q)))
        else:
            assert status == -want and start == end == -1


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(["ab", "ba", "abba", "b", "a"]), min_size=50, max_size=600), st.data()
)
def test_locate_long_overlapping_windows_matches_oracle(
    words: list[str], data: st.DataObject
) -> None:
    """Chunker-shaped input: windows of many words with overlap, as the chunker writes them
    (normalized) or re-spaced, some split into pieces; long enough for the block paths."""
    text = "".join(w + data.draw(st.sampled_from(LATIN1_SPACES)) for w in words)
    norm = o_norm(text)
    toks = norm.split(" ")
    per = data.draw(st.integers(5, 80))
    overlap = data.draw(st.integers(0, per - 1))
    chunks: list[str] = []
    split: set[int] = set()
    for start in range(0, len(toks), per - overlap):
        window = toks[start : start + per]
        if data.draw(st.integers(0, 5)) == 0 and len(window) > 2:  # cut into pieces
            cut = data.draw(st.integers(1, len(window) - 1))
            split.update({len(chunks), len(chunks) + 1})
            chunks.extend([" ".join(window[:cut]), " ".join(window[cut:])])
        else:
            sep = data.draw(st.sampled_from([" ", " ", "\n", " \xa0"]))
            chunks.append(sep.join(window))
    doc = DocumentText("d", text)
    got = locate_chunks(doc, chunks, split)
    assert got == o_locate(norm, o_markers(norm), chunks, split)


def test_resolve_labels_in_order_across_documents() -> None:
    texts = {
        "one": DocumentText("one", "alpha beta gamma delta " * 3),
        "two": DocumentText("two", "[Page 1] first page text [Page 2] second page gamma delta"),
    }
    labels = [
        EvidenceLabel("q1", "two", "gamma  delta", 2, None),
        EvidenceLabel("q2", "one", "beta\ngamma", None, None),
        EvidenceLabel("q3", "two", None, 1, None),
        EvidenceLabel("q4", "one", None, None, None),
        EvidenceLabel("q5", "one", "gamma delta alpha", None, "delta alpha"),
    ]
    got = resolve_labels(texts, labels)
    second = texts["two"].normalized.index("gamma")
    assert got == [
        ResolvedEvidence("two", second, second + 11, 2),
        ResolvedEvidence("one", 6, 16, None),
        ResolvedEvidence("two", None, None, 1),
        ResolvedEvidence("one", None, None, None),
        ResolvedEvidence("one", 34, 51, None),  # the copy from the hint on
    ]
    # The first wrong quote in label order is the one reported, by question and document.
    bad = [*labels, EvidenceLabel("q6", "one", "not there at all", None, None)]
    bad.insert(1, EvidenceLabel("q0", "two", "gamma delta", 1, None))
    with pytest.raises(
        LabelError, match=r"question q0, document two: .* not in the document on page 1"
    ):
        resolve_labels(texts, bad)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.data())
def test_resolve_many_on_long_documents_matches_str_find(seed: int, data: st.DataObject) -> None:
    """Documents over 64K code points take two interleaved walks (from the start and from
    the middle); quotes drawn near the middle, repeated on both sides, or absent."""
    import random

    rng = random.Random(seed)
    vocab = ["ab", "ba", "abba", "b", "a", "aab", "bab"]
    norm = " ".join(rng.choice(vocab) for _ in range(rng.randint(25_000, 45_000)))
    doc = _native.evidence_document(norm)
    mid = len(norm) // 2
    quotes = []
    for _ in range(data.draw(st.integers(1, 12))):
        length = data.draw(st.integers(8, 90))
        around = data.draw(
            st.sampled_from([mid - length, mid - 1, mid, mid + 1, 0, len(norm) - length])
        )
        start = min(max(around + data.draw(st.integers(-40, 40)), 0), len(norm) - length)
        quote = norm[start : start + length]
        if data.draw(st.integers(0, 5)) == 0:
            quote = quote[:-1] + "x"  # not in the document
        quotes.append(quote)
    got = _native.evidence_resolve_many(doc, quotes, [None] * len(quotes), [None] * len(quotes))
    for (status, start, end), quote in zip(got, quotes, strict=True):
        q = o_norm(quote)
        want = norm.find(q) if q else -1
        if want >= 0:
            assert (status, start, end) == (0, want, want + len(q))
        else:
            assert status == 4 and start == end == -1
