"""The benchmark's formulas on records of exactly known readings (no clock involved)."""

from __future__ import annotations

import math

import pytest

from gaia_eval.throughput.load import arrival_offsets_ns
from gaia_eval.throughput.metrics import (
    _apportion,
    chunk_tokens,
    derive,
    distribution,
    variance_stats,
)
from gaia_eval.throughput.record import StreamRecord
from gaia_eval.throughput.triage import Step, parse_answer, score

MS = 1_000_000


def _rec(
    offsets_ms: list[float], texts: list[str], *, usage: int | None, end_ms: float
) -> StreamRecord:
    base = 10_000 * MS
    return StreamRecord(
        t_scheduled_ns=base - 5 * MS,
        t_start_ns=base - 4 * MS,
        t_sent_ns=base,
        t_end_ns=base + int(end_ms * MS),
        chunk_t_ns=[base + int(o * MS) for o in offsets_ms],
        chunk_kind=["text"] * len(offsets_ms),
        chunk_text=texts,
        chunk_cum_tokens=[None] * len(offsets_ms),
        usage_output_tokens=usage,
        done=True,
    )


def test_ttft_tpot_itl_e2e_exact() -> None:
    rec = _rec([100, 160, 220], ["a b c", "d e f", "g h i"], usage=9, end_ms=221)
    d = derive(rec, open_loop=False, tokenizer=lambda text: len(text.split()))
    assert d.ttft_ms == 100 and d.e2e_ms == 221
    assert d.chunk_tokens == [3, 3, 3] and d.chunk_token_source == "tokenizer"
    assert d.icl_ms == pytest.approx([60.0, 60.0])
    assert d.tpot_ms == pytest.approx((221 - 100) / 8)
    assert d.itl_ms == pytest.approx([20.0] * 6)
    # Without a counter the split of the usage total is a guess: no per-token figure.
    g = derive(rec, open_loop=False)
    assert g.chunk_token_source == "apportioned" and g.itl_ms == []
    assert g.icl_ms == pytest.approx([60.0, 60.0]) and g.tpot_ms == d.tpot_ms
    # A count that disagrees with the server's total is no measurement either.
    off = derive(rec, open_loop=False, tokenizer=lambda text: 1)
    assert off.chunk_token_source == "apportioned" and off.itl_ms == []
    # Open loop measures from the scheduled time: the client's 5 ms lag counts.
    o = derive(rec, open_loop=True)
    assert o.ttft_ms == 105 and o.e2e_ms == 226


def test_tokens_follow_running_usage_when_the_server_sends_it() -> None:
    rec = _rec([10, 20, 30], ["x", "y", "z"], usage=6, end_ms=31)
    rec.chunk_cum_tokens = [1, 4, 6]
    tokens, source = chunk_tokens(rec)
    assert (tokens, source) == ([1, 3, 2], "usage")
    d = derive(rec, open_loop=False)
    assert d.itl_ms == pytest.approx([10 / 3] * 3 + [5.0, 5.0])


def test_apportion_keeps_the_total_and_one_token_per_chunk() -> None:
    assert _apportion(10, [1, 1, 1, 1, 1]) == [2, 2, 2, 2, 2]
    assert sum(_apportion(17, [3, 9, 1, 4])) == 17
    assert min(_apportion(17, [3, 9, 1, 4])) >= 1
    assert sum(_apportion(2, [5, 5, 5])) == 2  # fewer tokens than chunks
    assert _apportion(0, []) == []


def test_one_token_answer_has_no_tpot() -> None:
    rec = _rec([50], ["hi"], usage=1, end_ms=51)
    d = derive(rec, open_loop=False)
    assert d.tpot_ms is None and d.itl_ms == []


def test_distribution_and_variance() -> None:
    assert distribution([]) == {
        "mean": None,
        "p50": None,
        "p90": None,
        "p95": None,
        "p99": None,
        "max": None,
    }
    dist = distribution([float(v) for v in range(1, 101)])
    assert dist["mean"] == 50.5 and dist["p50"] == 50.5 and dist["p99"] == pytest.approx(99.01)
    v = variance_stats([10.0, 12.0, 14.0])
    assert v["n"] == 3 and v["mean"] == 12.0 and v["stdev"] == 2.0
    assert v["ci95_half_width"] == pytest.approx(1.96 * 2 / math.sqrt(3), abs=1e-6)
    assert v["cv_pct"] == pytest.approx(100 * 2 / 12, abs=1e-3)
    one = variance_stats([5.0])
    assert one["stdev"] == 0.0 and one["ci95_half_width"] == 0.0


def test_arrivals_are_seeded_and_shaped() -> None:
    constant = arrival_offsets_ns(4.0, 5, "constant")
    assert constant == [0, 250_000_000, 500_000_000, 750_000_000, 1_000_000_000]
    poisson = arrival_offsets_ns(10.0, 2000, "poisson")
    assert poisson == arrival_offsets_ns(10.0, 2000, "poisson")
    mean_gap = poisson[-1] / 1999 / 1e9
    assert 0.09 < mean_gap < 0.11  # exponential gaps of mean 1/rate


def test_triage_parse_rules() -> None:
    assert parse_answer('{"urgency": 5, "category": "work", "personal": false}')[0] == "ok"
    assert (
        parse_answer('```json\n{"urgency": 2, "category": "social", "personal": true}\n```')[0]
        == "ok"
    )
    assert parse_answer('{"urgency": 5, "category": "work"')[0] == "error"  # JSON-like, broken
    assert parse_answer('{"urgency": 9, "category": "work", "personal": false}')[0] == "error"
    assert parse_answer("This email is urgent.")[0] == "skipped"


def test_triage_metrics() -> None:
    def step(gold: tuple[int, str, bool], answer: str | None) -> Step:
        labels = {"urgency": gold[0], "category": gold[1], "personal": gold[2]}
        return Step(labels, answer, ttft_ms=100.0, tpot_ms=50.0, input_tokens=90, output_tokens=10)

    steps = [
        step((5, "work", False), '{"urgency": 4, "category": "work", "personal": false}'),
        step((4, "social", True), '{"urgency": 2, "category": "social", "personal": true}'),
        step((1, "newsletter", False), '{"urgency": 3, "category": "work", "personal": true}'),
        step((3, "health", True), "not json"),
        step((3, "health", True), '{"urgency": 3'),
        step((2, "work", False), None),
    ]
    s = score(steps, pipeline_s=12.5)
    assert (s.classified, s.skipped, s.parse_errors, s.request_errors) == (3, 1, 1, 1)
    assert s.within_one_bucket_accuracy == pytest.approx(1 / 3, abs=1e-4)
    assert s.urgent_vs_not_accuracy == pytest.approx(2 / 3, abs=1e-4)
    assert s.urgent_recall == 0.5 and s.personal_recall == 1.0
    assert s.category_accuracy == pytest.approx(2 / 3, abs=1e-4)
    assert s.tokens_per_triage == 100.0 and s.output_tokens_per_triage == 10.0
    assert s.avg_tokens_per_second == 20.0 and s.meets_throughput_bar
    assert s.status == "PASS"
    assert score([step((3, "work", False), "nope")], 1.0).status == "FAIL"


def test_every_latency_has_its_p95_and_max() -> None:
    dist = distribution([float(v) for v in range(1, 101)] + [4760.0])
    assert dist["max"] == 4760.0  # one decode stall: only the max shows it
    assert dist["p95"] == pytest.approx(96.0)


def test_each_run_varies_its_prompts_at_the_front() -> None:
    from gaia_eval.throughput.workloads import chat_workload, request_body

    item = chat_workload().items[0]
    a = request_body(item, "openai", "m", "aaaa1111")
    b = request_body(item, "openai", "m", "bbbb2222")
    first_a, first_b = a["messages"][0]["content"], b["messages"][0]["content"]
    assert first_a.startswith("(run aaaa1111) ") and first_b.startswith("(run bbbb2222) ")
    assert first_a.removeprefix("(run aaaa1111) ") == item.messages[0]["content"]
    assert request_body(item, "openai", "m")["messages"] == item.messages  # no nonce: as is
    anth = request_body(item, "anthropic", "m", "aaaa1111")
    assert "(run aaaa1111)" in (anth.get("system") or anth["messages"][0]["content"])


def test_a_level_served_from_the_prompt_cache_is_said() -> None:
    from gaia_eval.throughput.runner import cache_notes

    warm = {"llamacpp:prompt_tokens_total": 589.0, "llamacpp:prompt_tokens_cached_total": 583.0}
    (note,) = cache_notes(warm)
    assert "99% of the level's prompt tokens came from the server's prompt cache" in note
    cold = {"llamacpp:prompt_tokens_total": 589.0, "llamacpp:prompt_tokens_cached_total": 6.0}
    assert cache_notes(cold) == []
    vllm = {"vllm:prefix_cache_hits_total": 900.0, "vllm:prefix_cache_queries_total": 1000.0}
    assert cache_notes(vllm) and cache_notes({}) == []
