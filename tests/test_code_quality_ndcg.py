"""nDCG@10 of the code-retrieval quality scores (the native ranking kernel) against a plain
oracle of binary-gain DCG over the ideal DCG, and its place in the summary."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from gaia_eval.code_retrieval import quality
from gaia_eval.code_retrieval.models import Scores

names = st.sampled_from([f"f{i}.py" for i in range(15)])


def _oracle(gold: list[str], ranked: list[str], k: int) -> float:
    g, seen, dcg = set(gold), set(), 0.0
    for i, r in enumerate(ranked[:k]):
        if r in g and r not in seen:  # a repeated hit counts once
            dcg += 1 / math.log2(i + 2)
        seen.add(r)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(g), k)))
    return dcg / ideal


@given(st.lists(names, min_size=1, max_size=5), st.lists(names, max_size=20))
def test_ndcg_matches_oracle(gold: list[str], ranked: list[str]) -> None:
    assert math.isclose(quality.ndcg(gold, ranked, 10), _oracle(gold, ranked, 10), abs_tol=1e-12)


def test_summary_reports_file_ndcg_and_tolerates_runs_without_it() -> None:
    new = quality.recall_rr(["a.py"], ["b.py", "a.py"], quality.FILE_KS)
    assert new["ndcg@10"] == 1 / math.log2(3)
    old = {k: v for k, v in new.items() if k != "ndcg@10"}  # a run written before nDCG
    rows = [
        Scores(seconds=0.0, top_files=[], top_symbols=[], files=f, symbols=None) for f in (new, old)
    ]
    assert quality._metrics(rows)["file_ndcg@10"] == round(1 / math.log2(3), 4)
    assert quality._metrics(rows[1:])["file_ndcg@10"] is None
