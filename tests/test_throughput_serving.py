"""`gaia-eval benchmark`'s serving-engineer workloads end to end against the loopback stub:
rate sweeps, length distributions, server-side timings, multi-turn and shared-prefix
workloads, token-counted prompts, and the report's figures."""

from __future__ import annotations

import itertools
import json
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.cli.main import main
from gaia_eval.throughput.load import arrival_offsets_ns
from gaia_eval.throughput.stub import stub_process


@pytest.fixture(scope="module")
def stub() -> Iterator[str]:
    with stub_process() as url:
        yield url


@pytest.fixture(scope="module")
def two_slots() -> Iterator[str]:
    """A server that streams two requests at once and queues the rest (llama.cpp slots)."""
    with stub_process(slots=2) as url:
        yield url


def _run(out: Path, *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["benchmark", *args, "--out", str(out)])
    path = out / "results.json"
    return code, json.loads(path.read_text()) if path.exists() else {}


def _bad(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(["benchmark", "--model", "openai:http://127.0.0.1:9/v1#m", *args,
                 "--out", str(tmp_path / "r")])  # fmt: skip
    assert code == 2
    return capsys.readouterr().err


# ---- 1. rate sweeps ----------------------------------------------------------------------


def test_sweep_finds_the_rate_a_two_slot_server_sustains(two_slots: str, tmp_path: Path) -> None:
    # Each request holds a slot ~170 ms (60 ms to the first token, 11 gaps of 10 ms): two
    # slots serve about 11.7 requests/s, one request at a time about 5.9. Timings this long
    # keep a loaded machine's scheduling jitter small beside them.
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{two_slots}/v1#custom:ttft_ms=60,gap_ms=10,chunks=12",
        "--sweep", "4", "--requests", "24", "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    levels = {lv["level"]: lv for lv in res["summary"]["levels"]}
    assert list(levels) == ["sweep-sync", "sweep-max", "sweep-1", "sweep-2", "sweep-3", "sweep-4"]
    assert all(levels[f"sweep-{k}"]["arrivals"] == "constant" for k in range(1, 5))  # default
    assert levels["sweep-sync"]["concurrency"] == 1
    assert levels["sweep-max"]["concurrency"] == 4  # twice the slots /props publishes
    found = res["summary"]["sweep"]
    sync, top = levels["sweep-sync"]["requests_per_s"], levels["sweep-max"]["requests_per_s"]
    assert found["sync_rps"] == sync and found["max_rps"] == top
    assert 2 < sync < 6.2 and sync * 1.4 < top < 12
    rates = [levels[f"sweep-{k}"]["rate"] for k in range(1, 5)]
    assert rates == found["rates"]
    assert rates[0] == pytest.approx(sync, rel=1e-3) and rates[-1] == pytest.approx(
        1.2 * top, rel=1e-3
    )
    # The first rate is what one slot serves alone: sustained. The last is past what two
    # slots can serve: the queue grows, completions fall behind arrivals.
    assert levels["sweep-1"]["sustained"] is True
    assert levels["sweep-4"]["sustained"] is False
    top_step = levels["sweep-4"]
    behind = top_step["completion_rps"] < 0.9 * top_step["offered_rps"]
    assert behind or top_step["e2e_growth"] > 1.5, top_step
    held = found["sustained_rps"]
    assert held is not None and rates[0] * 0.999 <= held < rates[-1]
    assert levels["sweep-4"]["ttft_ms"]["p99"] > levels["sweep-1"]["ttft_ms"]["p99"]
    report = (tmp_path / "run" / "report.md").read_text()
    assert (
        "## Rate sweep" in report and f"Highest rate sustained: **{held:g} requests/s**" in report
    )


def test_the_sweep_answers_with_the_unbroken_run_from_the_bottom() -> None:
    from gaia_eval.throughput import sweep
    from gaia_eval.throughput.models import LevelStats

    def step(k: int, rate: float, held: bool) -> LevelStats:
        return LevelStats.model_construct(
            level=f"sweep-{k}", rate=rate, offered_rps=rate * 0.98, sustained=held
        )

    probes = [
        LevelStats.model_construct(level="sweep-sync", rate=None, requests_per_s=1.0),
        LevelStats.model_construct(level="sweep-max", rate=None, requests_per_s=3.0, concurrency=8),
    ]
    # A pass above a failure (noise at few requests) is no capacity: named, not taken.
    found = sweep.summarise([*probes, step(1, 1.0, True), step(2, 2.0, False), step(3, 3.6, True)])
    assert found is not None
    assert found.sustained_rps == 0.98 and found.unsettled == ["sweep-3"]
    assert found.rates == [1.0, 2.0, 3.6] and found.max_concurrency == 8
    none = sweep.summarise([*probes[:1], step(1, 1.0, False)])
    assert none is not None and none.sustained_rps is None
    assert sweep.rates(1.0, 3.0, 3) == [1.0, 2.3, 3.6]
    # With --slo, a rate served too slowly for the objectives is not sustained.
    from gaia_eval.throughput.models import Goodput

    fast = LevelStats.model_construct(
        offered_rps=2.0, completion_rps=2.0, e2e_growth=1.0, stopped=None, error_rate=0.0
    )
    slow = fast.model_copy(
        update={"goodput": Goodput(slo={"ttft_ms": 1}, met=1, share=0.5, output_tokens_per_s=1)}
    )
    assert sweep.sustained(fast) and not sweep.sustained(slow)
    # A queue that keeps growing: each request waits longer than the one before.
    assert sweep.e2e_growth([100, 110, 105, 300, 400, 500]) == pytest.approx(400 / 105, rel=1e-3)
    assert sweep.e2e_growth([100, 200]) is None


def test_sweep_steps_resume_from_the_probes_of_the_earlier_run(
    two_slots: str, tmp_path: Path
) -> None:
    from gaia_eval.core.runloop import ITEM_LOG

    args = ["--model", f"openai:{two_slots}/v1#custom:ttft_ms=5,gap_ms=1,chunks=4",
            "--sweep", "2", "--requests", "8", "--warmup", "0"]  # fmt: skip
    code, res = _run(tmp_path / "run", *args)
    assert code == 0
    first = res["summary"]["sweep"]["rates"]
    log = tmp_path / "run" / ITEM_LOG
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:2]) + "\n")  # as if killed after the two probes
    code = main(["benchmark", *args, "--resume", str(tmp_path / "run")])
    assert code == 0
    res = json.loads((tmp_path / "run" / "results.json").read_text())
    assert res["summary"]["sweep"]["rates"] == first


def test_burstiness_is_the_gamma_shape_of_the_gaps() -> None:
    def gaps(shape: float) -> list[float]:
        offs = arrival_offsets_ns(10.0, 4000, "poisson", burstiness=shape)
        return [(b - a) / 1e9 for a, b in itertools.pairwise(offs)]

    for shape in (0.25, 1.0, 4.0):
        g = gaps(shape)
        assert statistics.fmean(g) == pytest.approx(0.1, rel=0.08)  # the rate holds
        # A gamma of shape k has a coefficient of variation of 1 / sqrt(k).
        cv = statistics.stdev(g) / statistics.fmean(g)
        assert cv == pytest.approx(shape**-0.5, rel=0.12)


def test_burstiness_is_recorded_per_level(stub: str, tmp_path: Path) -> None:
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#custom:ttft_ms=2,gap_ms=1,chunks=3",
        "--rate", "50", "--burstiness", "0.5", "--requests", "6", "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    (lv,) = res["summary"]["levels"]
    assert lv["burstiness"] == 0.5 and lv["arrivals"] == "poisson"


# ---- 2. length distributions ---------------------------------------------------------------


def test_chat_lengths_are_drawn_per_request_and_recorded(stub: str, tmp_path: Path) -> None:
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#custom:ttft_ms=1,gap_ms=1,chunks=40,cap=1",
        "--input-words", "uniform:20,60", "--max-tokens", "normal:12,4",
        "--concurrency", "2", "--requests", "16", "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    assert res["header"]["tier"] == "chat(in=uniform:20,60w,out=normal:12,4)"
    rows = res["items"][0]["result"]["requests"]
    ins = [r["input_len"] for r in rows]
    outs = [r["max_tokens"] for r in rows]
    assert all(20 <= n <= 60 for n in ins) and len(set(ins)) > 4
    assert all(r["input_unit"] == "words" for r in rows)
    assert len(set(outs)) > 3 and all(n >= 1 for n in outs)
    # The stub answers max_tokens tokens (one a chunk) and counts a prompt's words: the
    # server's own counts follow the drawn lengths request by request.
    assert [r["output_tokens"] for r in rows] == outs
    offsets = {r["input_tokens"] - r["input_len"] for r in rows}
    assert len(offsets) == 1
    lv = res["summary"]["levels"][0]
    assert lv["output_tokens_per_request"]["max"] == max(outs)
    assert lv["input_tokens_per_request"]["p50"] is not None
    # The same flags draw the same lengths: runs compare.
    code, again = _run(
        tmp_path / "again",
        "--model", f"openai:{stub}/v1#custom:ttft_ms=1,gap_ms=1,chunks=40,cap=1",
        "--input-words", "uniform:20,60", "--max-tokens", "normal:12,4",
        "--concurrency", "2", "--requests", "16", "--warmup", "0",
    )  # fmt: skip
    assert [r["max_tokens"] for r in again["items"][0]["result"]["requests"]] == outs
    assert (
        again["header"]["settings"]["workload_digest"]
        == res["header"]["settings"]["workload_digest"]
    )


def test_a_fixed_length_chat_workload_keeps_its_prompts() -> None:
    from gaia_eval.throughput.lengths import parse
    from gaia_eval.throughput.workloads import chat_workload

    # The digest of a fixed-length run is the one recorded before distributions existed.
    plain = chat_workload(count=4, input_words=64, max_tokens=32)
    parsed = chat_workload(count=4, input_words=parse("64", "--input-words"), max_tokens=32)
    assert plain.digest == parsed.digest and plain.name == "chat(in=64w,out=32)"
    assert all(i.input_len is None for i in plain.items)


def test_sharegpt_rows_give_the_first_turn_and_the_reply_length(stub: str, tmp_path: Path) -> None:
    rows = [
        {"id": "a", "conversations": [
            {"from": "human", "value": "What is a river?"},
            {"from": "gpt", "value": "A river is " + "water " * 10},
            {"from": "human", "value": "And a lake?"},
        ]},
        {"id": "b", "conversations": [{"from": "human", "value": "no reply here"}]},
        {"id": "c", "conversations": [
            {"from": "system", "value": "Be brief."},
            {"from": "human", "value": "Name a colour."},
            {"from": "gpt", "value": "Blue."},
        ]},
    ]  # fmt: skip
    path = tmp_path / "sharegpt.json"
    path.write_text(json.dumps(rows))  # ShareGPT's own files are one JSON array
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#custom:ttft_ms=1,gap_ms=1,chunks=40,cap=1",
        "--workload", str(path), "--requests", "2", "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    assert res["header"]["tier"] == "sharegpt:sharegpt.json"
    got = {r["item"]: r for r in res["items"][0]["result"]["requests"]}
    assert set(got) == {"a", "c"}  # b has no reply to size the answer
    # Each reply counted by the server's tokenizer (the stub's counts words), as vLLM's
    # ShareGPT dataset counts it with the model's.
    assert res["setup"]["server"]["reply_token_counter"] == "server /tokenize"
    assert got["a"]["max_tokens"] == 13 and got["c"]["max_tokens"] == 1
    assert got["a"]["output_tokens"] == 13
    # Where nothing can count tokens, the reply's words x 4/3 (rounded up) stand in.
    from gaia_eval.throughput.workloads import jsonl_workload

    items = {i.id: i for i in jsonl_workload(path).items}
    assert items["a"].max_tokens == 18 and items["c"].max_tokens == 2


def test_a_bad_sharegpt_row_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"conversations": [{"from": "robot", "value": "x"}]}) + "\n")
    err = _bad(tmp_path, capsys, "--workload", str(path))
    assert "line 1" in err and "'conversations'" in err


# ---- 3. server-side timings ----------------------------------------------------------------


def test_server_timings_sit_beside_the_clients(two_slots: str, tmp_path: Path) -> None:
    # Two slots, four in flight: half the requests wait ~one request for a slot. The
    # server's prefill (30 ms to the first token once in a slot) stays; the client's TTFT
    # grows by the wait, and the difference shows it.
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{two_slots}/v1#custom:ttft_ms=30,gap_ms=5,chunks=12",
        "--concurrency", "1,4", "--requests", "12", "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    c1, c4 = res["summary"]["levels"]
    for lv in (c1, c4):
        t = lv["server_timing"]
        assert t["requests"] == 12
        assert 28 <= t["prefill_ms"]["p50"] < 60
        assert 4 <= t["decode_ms_per_token"]["p50"] < 20
        # Unique prompts: the stub's cache holds only their shared opening words.
        assert 0 <= t["cached_prompt_tokens"] < t["prompt_tokens"] / 4
    assert c1["server_timing"]["ttft_minus_prefill_ms"]["p50"] < 20
    # At c4 half wait for a slot: about one whole request (~85 ms).
    assert c4["server_timing"]["ttft_minus_prefill_ms"]["p90"] > 50
    row = res["items"][1]["result"]["requests"][0]
    assert set(row["server_timings"]) >= {"prompt_n", "prompt_ms", "predicted_n", "cache_n"}
    assert row["cached_tokens"] == row["server_timings"]["cache_n"]
    props = res["setup"]["server"]["props"]
    assert props["total_slots"] == 2 and props["n_ctx"] == 4096 and props["build_info"] == "stub"
    report = (tmp_path / "run" / "report.md").read_text()
    assert "TTFT / server prefill / difference p50 ms" in report
    assert "total_slots `2`" in report
    # /metrics keeps the server's counters, the cached prompt tokens among them.
    assert "llamacpp:prompt_tokens_cached_total" in c4["server_metrics"]


# ---- 4. multi-turn and shared-prefix workloads ------------------------------------------


_PREFILL = "custom:ttft_ms=5,gap_ms=1,chunks=4,prefill_ms_per_token=1"
"""A stub that spends 1 ms per prompt token its prefix cache does not hold."""


def test_a_shared_prefix_is_served_from_the_cache_unless_it_is_off(
    stub: str, tmp_path: Path
) -> None:
    common = ["--model", f"openai:{stub}/v1#{_PREFILL}", "--workload", "prefix",
              "--prefix-words", "400", "--input-words", "16", "--concurrency", "1",
              "--requests", "6", "--warmup", "1"]  # fmt: skip
    code, on = _run(tmp_path / "on", *common, "--prompt-cache", "on")
    assert code == 0
    code, off = _run(tmp_path / "off", *common, "--prompt-cache", "off")
    assert code == 0
    assert on["header"]["tier"] == "prefix(shared=400w,in=16w,out=128)"
    assert on["header"]["settings"]["prompt_cache"] is True
    lv_on, lv_off = on["summary"]["levels"][0], off["summary"]["levels"][0]
    rows_on = on["items"][0]["result"]["requests"]
    rows_off = off["items"][0]["result"]["requests"]
    # The shared ~400-word prefix comes from the cache (after the warmup's request)...
    assert all(r["cached_tokens"] > 350 for r in rows_on)
    assert all(r["cached_tokens"] == 0 for r in rows_off)
    # ...so prefill is a few ms instead of ~1 ms x 430 tokens.
    assert lv_off["ttft_ms"]["p50"] > 150
    assert lv_on["ttft_ms"]["p50"] < lv_off["ttft_ms"]["p50"] / 3
    assert lv_on["server_timing"]["cached_prompt_tokens"] > 6 * 350
    assert lv_on["server_metrics"]["llamacpp:prompt_tokens_cached_total"] > 6 * 350
    assert "as the workload's shared prefixes intend" in lv_on["server_notes"][0]
    assert not lv_off["server_notes"]


def test_multiturn_conversations_grow_and_the_cache_keeps_ttft(stub: str, tmp_path: Path) -> None:
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#{_PREFILL}", "--workload", "multiturn",
        "--turns", "4", "--input-words", "40", "--max-tokens", "60",
        "--concurrency", "2", "--requests", "12", "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    assert res["header"]["tier"] == "multiturn(turns=4,in=40w,out=60)"
    rows = res["items"][0]["result"]["requests"]
    # Three conversations of four turns, sent turn by turn across them.
    assert [r["item"] for r in rows[:4]] == [
        "conv-0000-t1", "conv-0001-t1", "conv-0002-t1", "conv-0000-t2",
    ]  # fmt: skip
    assert [r["turn"] for r in rows] == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]
    turns = res["summary"]["levels"][0]["by_turn"]
    assert [t["turn"] for t in turns] == [1, 2, 3, 4]
    prompts = [t["input_tokens_mean"] for t in turns]
    assert prompts == sorted(prompts) and prompts[3] > 3 * prompts[0]  # the prompt grows
    cached = [t["cached_tokens_mean"] for t in turns]
    assert cached[1] > 0.5 * prompts[0]  # turn 2 starts with turn 1's whole prompt
    assert cached[3] > 0.6 * prompts[3]
    # Only one turn's worth (the last answer and the new question) is prefilled: TTFT
    # stays under half of what the whole grown prompt would cost at 1 ms a token.
    assert turns[3]["ttft_ms"]["p50"] < 0.5 * prompts[3]
    report = (tmp_path / "run" / "report.md").read_text()
    assert "Multi-turn: each turn's prompt holds the turns before it" in report


def test_levels_of_a_multiturn_run_have_conversations_of_their_own() -> None:
    from gaia_eval.throughput.workloads import multiturn_workload

    wl = multiturn_workload([2, 6, 6], turns=3)
    convs = [{i.id.split("-t")[0] for i in wl.items[a:b]} for a, b in ((0, 2), (2, 8), (8, 14))]
    assert all(convs[i].isdisjoint(convs[j]) for i in range(3) for j in range(i + 1, 3))
    for item in wl.items:  # each turn's prompt starts with the turn before
        if item.turn and item.turn > 1:
            prev = next(
                i for i in wl.items
                if i.id == item.id.replace(f"-t{item.turn}", f"-t{item.turn - 1}")
            )  # fmt: skip
            assert item.messages[: len(prev.messages)] == prev.messages


# ---- 5. --input-tokens counted by the server's tokenizer ---------------------------------


def test_input_tokens_are_counted_by_the_servers_tokenizer(stub: str, tmp_path: Path) -> None:
    # The stub's /tokenize counts words: a prompt of 40 tokens is 40 words as sent (the
    # run's nonce included), whatever the words.
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#custom:ttft_ms=1,gap_ms=1,chunks=4",
        "--input-tokens", "uniform:30,50", "--requests", "8", "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    assert res["header"]["tier"] == "chat(in=uniform:30,50t,out=128)"
    assert res["setup"]["server"]["input_token_counter"] == "server /tokenize"
    rows = res["items"][0]["result"]["requests"]
    assert all(r["input_unit"] == "tokens" and 30 <= r["input_len"] <= 50 for r in rows)
    assert len({r["input_len"] for r in rows}) > 2
    # The server's usage (the stub counts the JSON of the messages) follows the length.
    assert len({r["input_tokens"] - r["input_len"] for r in rows}) == 1


def test_token_prompts_fit_any_counter() -> None:
    from gaia_eval.throughput.workloads import token_prompt

    def chars(text: str) -> int:  # a tokenizer of 4-character pieces
        return -(-len(text) // 4)

    for target in (20, 64, 200):
        prompt = token_prompt(3, target, chars, lead="(run ab12cd34) ")
        got = chars("(run ab12cd34) " + prompt)
        assert target - 3 <= got <= target  # the next word would overshoot


def test_input_tokens_without_a_tokenizer_is_exit_2(
    stub: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gaia_eval.throughput import runner

    monkeypatch.setattr(runner, "server_tokenizer", lambda target: None)  # a server without one
    code = main(["benchmark", "--model", f"openai:{stub}/v1#steady", "--input-tokens", "64",
                 "--requests", "2", "--warmup", "0", "--out", str(tmp_path / "r")])  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert "--input-tokens" in err and "--tokenizer FILE" in err


# ---- 6. the report -------------------------------------------------------------------------


def test_a_decode_stall_shows_in_the_max_and_a_log_histogram(stub: str, tmp_path: Path) -> None:
    # 2 ms between tokens, and one 400 ms stall before the ninth chunk of every request.
    model = "custom:ttft_ms=5,gap_ms=2,chunks=16,stall_ms=400,stall_at=8"
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#{model}",
        "--concurrency", "1", "--requests", "3", "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    (lv,) = res["summary"]["levels"]
    assert lv["itl_ms"]["p50"] < 50 and lv["itl_ms"]["max"] > 390
    # GuideLLM's time per output token (E2E / tokens) counts the TTFT in: never below ours.
    assert lv["e2e_per_token_ms"]["p50"] >= lv["tpot_ms"]["p50"] * 15 / 16
    report = (tmp_path / "run" / "report.md").read_text()
    assert "ITL distribution, level c1 (45 token gaps; log scale" in report
    assert "| `c1` | E2E/token (GuideLLM TPOT) |" in report
    assert "| `c1` | server prefill |" in report and "| `c1` | TTFT − server prefill |" in report
    assert "GuideLLM's ITL percentiles are over per-request means" in report
    assert "**vs GuideLLM**" in report and "**vs vLLM**" in report
    html = (tmp_path / "run" / "report.html").read_text()
    assert "log-scale x" in html
    # Tables that fit the page: no table of more than ten columns.
    for line in report.splitlines():
        if line.startswith("|---"):
            assert line.count("|") - 1 <= 10, line


def test_log_histogram_marks_the_decades() -> None:
    from gaia_eval.core.charts import histogram

    svg = histogram([2.0] * 50 + [3.0] * 20 + [4760.0], bins=24, unit=" ms", log_x=True)
    assert "n=71, log-scale x" in svg
    assert ">10 ms<" in svg and ">100 ms<" in svg and ">1000 ms<" in svg
    assert ">2 ms<" in svg and ">4760 ms<" in svg
    assert svg.count("<rect") == 24


def test_close_measured_x_values_do_not_overprint_their_labels() -> None:
    from gaia_eval.core.charts import lines

    # A sweep's probe and first step complete about the same requests/s.
    svg = lines({"TTFT p50": [(3.9167, 20.0), (3.9164, 23.0), (6.1757, 25.0), (7.6269, 270.0)]})
    assert ">3.916<" in svg and ">6.176<" in svg and ">7.627<" in svg
    assert ">3.917<" not in svg  # within 40 px of its neighbour: left out
    assert ">1<" in lines({"a": [(1.0, 1.0), (2.0, 2.0)]})  # whole numbers stay whole


def test_a_run_that_measured_nothing_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from tasks_fakes import hang_up

    with hang_up() as url:
        code, _ = _run(
            tmp_path / "run", "--model", f"openai:{url}/v1#m", "--requests", "2", "--warmup", "0"
        )
    assert code == 3
    out = capsys.readouterr().out
    assert "nothing measured" in out and "0.000" not in out
    report = (tmp_path / "run" / "report.md").read_text()
    assert "Nothing measured: no level finished." in report and "0.000" not in report


# ---- bad flags: exit 2, naming the flag and the fix ------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--sweep", "0"], "--sweep N"),
        (["--sweep", "3", "--repeats", "2"], "--sweep with --repeats"),
        (["--rate", "1", "--burstiness", "0"], "--burstiness must be a positive"),
        (["--concurrency", "2", "--burstiness", "2"], "--burstiness shapes poisson"),
        (["--rate", "1", "--arrivals", "constant", "--burstiness", "2"], "--burstiness shapes"),
        (["--input-words", "uniform:5"], "uniform:LO,HI"),
        (["--input-words", "uniform:9,3"], "1 <= LO <= HI"),
        (["--input-words", "normal:0,1"], "normal:MEAN,SD"),
        (["--input-words", "0"], "whole number from 1"),
        (["--input-words", "zipf:1,2"], "expected N, uniform"),
        (["--max-tokens", "12.5"], "--max-tokens"),
        (["--max-tokens", "uniform:1,4", "--workload", "triage"], "chat workload only"),
        (["--workload", "multiturn", "--turns", "0"], "--turns must be"),
        (["--turns", "3"], "--workload multiturn"),
        (["--workload", "prefix", "--prefix-words", "0"], "--prefix-words must be"),
        (["--prefix-words", "64"], "--workload prefix"),
        (
            ["--input-tokens", "64", "--input-words", "64"],
            "--input-tokens sets the chat workload's",
        ),
        (
            ["--input-tokens", "64", "--workload", "triage"],
            "--input-tokens sets the chat workload's",
        ),
    ],
)
def test_bad_flags_are_exit_2_naming_the_fix(
    args: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert needle in _bad(tmp_path, capsys, *args)
