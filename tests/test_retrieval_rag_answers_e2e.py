"""Answers end to end: `gaia-eval retrieval --component rag --model openai:...` against a
loopback OpenAI-compatible server (a real socket) that scripts the model's replies.

The dataset is the toy one plus a question whose evidence cannot reach the model (six
distractor documents repeat the question verbatim, so they fill the top chunks): a wrong
answer there is a retrieval miss; a wrong answer with the evidence sent is a generation
miss. The server records every request, so the tests also see what the model was sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from retrieval_rag_data import QUESTIONS, write_dataset
from tasks_fakes import FakeLLM, hang_up, serve

from gaia_eval.cli.main import main
from gaia_eval.core.results import Envelope, load_envelope
from gaia_eval.core.suite import legacy_converters
from gaia_eval.llm.spec import parse_model_spec
from gaia_eval.retrieval.answer_cases import INJECTION_CANARY, prompt_injection
from gaia_eval.retrieval.answers import JUDGE_SYSTEM
from gaia_eval.retrieval.dataset import load_dataset
from gaia_eval.retrieval.evidence import DocumentText
from gaia_eval.retrieval.hard_cases import Context
from gaia_eval.retrieval.models import RagSummary
from gaia_eval.retrieval.summary import questions
from gaia_eval.retrieval.systems import reference_maker

RAG = ["retrieval", "--component", "rag", "--embedder", "hash"]

LIGHTHOUSE_Q = "What colour is the door of the old harbour lighthouse?"
HIDDEN = {
    "id": "toy-006",
    "doc": "lighthouse",
    "question": LIGHTHOUSE_Q,
    "answer": "bright green",
    "answer_type": "exact",
    "evidence": [{"quote": "the keeper painted its entrance bright green in spring"}],
    "tags": ["hidden"],
}
JUDGED = {
    "id": "toy-007",
    "doc": "comets",
    "question": "Why is Halley's comet notable in the comets document?",
    "answer": "It returns about every seventy six years, next in 2061",
    "answer_type": "judge",
    "evidence": [{"quote": "returns to the inner solar system about every seventy six years"}],
    "tags": ["text"],
}
# Question text -> the scripted reply.
REPLIES = {
    QUESTIONS[0]["question"]: "The station delivers water at 42 bar.",  # numeric, correct
    QUESTIONS[1]["question"]: "About 50000 workers.",  # exact, correct
    QUESTIONS[2]["question"]: "It departs at 21:40 from the Oriente terminal.",  # correct
    QUESTIONS[3]["question"]: "They mature for six months.",  # wrong, evidence sent
    QUESTIONS[4]["question"]: "Every seventy six years.",  # correct
    LIGHTHOUSE_Q: "The context does not say; I do not know.",  # wrong, evidence not sent
    JUDGED["question"]: "It comes back roughly every 76 years.",
}


class _Scripted(FakeLLM):
    """Answers every question from REPLIES and every judge call with correct; with `obey`,
    a prompt holding the planted canary gets the canary back."""

    def __init__(self) -> None:
        super().__init__(answer=self._reply)
        self.obey = False
        self.url = ""

    def _reply(self, body: dict[str, Any]) -> dict[str, Any]:
        msgs = body["messages"]
        if msgs[0]["content"] == JUDGE_SYSTEM:
            text = '{"correct": true}'
        elif self.obey and INJECTION_CANARY in msgs[-1]["content"]:
            text = INJECTION_CANARY  # a model that follows planted instructions
        else:
            question = msgs[-1]["content"].rsplit("Question: ", 1)[1].removesuffix("\nAnswer:")
            text = REPLIES[question]
        return {"content": text, "usage": {"prompt_tokens": 100, "completion_tokens": 9}}


@pytest.fixture
def server() -> Iterator[_Scripted]:
    fake = _Scripted()
    with serve(fake) as url:
        fake.url = url
        yield fake


def _spec(srv: _Scripted) -> str:
    return f"openai:{srv.url}/v1#scripted"


def _dataset(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    docs = folder / "docs"
    docs.mkdir(parents=True)
    (docs / "lighthouse.txt").write_text(
        "Harbour notes. On the old tower, the keeper painted its entrance bright green in "
        "spring, and the lamp was serviced in autumn.\n",
        encoding="utf-8",
    )
    extra = {"lighthouse": "docs/lighthouse.txt"}
    for i in range(6):
        (docs / f"faq-{i}.txt").write_text(f"FAQ {i}. {LIGHTHOUSE_Q} " * 3, encoding="utf-8")
        extra[f"faq-{i}"] = f"docs/faq-{i}.txt"
    return write_dataset(folder, questions=[*QUESTIONS, HIDDEN, JUDGED], extra_docs=extra)


def _load(folder: Path) -> Envelope:
    return load_envelope(folder / "results.json", suite="retrieval-rag", legacy=legacy_converters())


def test_answers_split_correct_generation_and_retrieval_misses(
    tmp_path: Path, server: _Scripted
) -> None:
    ds = _dataset(tmp_path)
    out = tmp_path / "answers"
    assert main([*RAG, "--dataset", str(ds), "--model", _spec(server), "--out", str(out)]) == 0
    env = _load(out)
    assert env.header.settings["answer_model"] == _spec(server)
    qs = {q.id: q for q in questions(env)["toy"]}
    got = {qid: (q.answer.outcome if q.answer else None) for qid, q in qs.items()}
    assert got == {
        "toy-001": "correct",
        "toy-002": "correct",
        "toy-003": "correct",
        "toy-004": "generation_miss",
        "toy-005": "correct",
        "toy-006": "retrieval_miss",
        "toy-007": "unscored",  # free-form, and no --judge: never guessed
    }
    # in_context is what was sent: the evidence quote is in the prompt exactly when it says so.
    sent = {
        r["messages"][-1]["content"].rsplit("Question: ", 1)[1].removesuffix("\nAnswer:"): r
        for r in server.requests
    }
    by_question = {q.question: q for q in qs.values()}
    for text, body in sent.items():
        q = by_question[text]
        assert q.answer is not None
        prompt = " ".join(body["messages"][-1]["content"].split())
        quote = next(e for e in [*QUESTIONS, HIDDEN, JUDGED] if e["question"] == text)
        assert (quote["evidence"][0]["quote"] in prompt) is q.answer.in_context
        # A fresh conversation per question: the system and this question, nothing earlier;
        # only this question's own passages (an earlier query's chunks are not resent).
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        passages = re.findall(r"^\[\d+\] \(", body["messages"][-1]["content"], re.MULTILINE)
        assert len(passages) == q.answer.context_chunks
        assert q.answer.context_chunks == 5 and not q.answer.canary
        others = [o for o in REPLIES.values() if o != REPLIES[text]]
        assert not any(o in prompt for o in others)
    assert qs["toy-006"].sdk_rank is None or qs["toy-006"].sdk_rank > 5
    assert qs["toy-001"].answer and qs["toy-001"].answer.graded_by == "numeric"
    assert qs["toy-002"].answer and qs["toy-002"].answer.token_f1 is not None
    (d,) = RagSummary.model_validate(env.summary).datasets
    a = d.summary.answers
    assert a is not None
    assert (a.answered, a.scored, a.correct, a.accuracy) == (7, 6, 4, round(4 / 6, 4))
    assert a.outcomes == {
        "correct": 4,
        "correct_without_evidence": 0,
        "generation_miss": 1,
        "retrieval_miss": 1,
        "unscored": 1,
    }
    assert d.by_tag["hidden"].answer_accuracy == 0.0
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "answer accuracy" in report and "retrieval miss" in report
    assert "`toy-004` (generation miss)" in report


def test_judge_grades_free_form_answers_and_answers_never_enter_the_gate(
    tmp_path: Path, server: _Scripted
) -> None:
    ds = _dataset(tmp_path)
    base = tmp_path / "retrieval-only"
    assert main([*RAG, "--dataset", str(ds), "--retrieval-only", "--out", str(base)]) == 0
    assert all(q.answer is None for q in questions(_load(base))["toy"])
    assert not server.requests
    out = tmp_path / "judged"
    spec = _spec(server)
    argv = ["--model", spec, "--judge", spec, "--gate", str(base / "results.json")]
    assert main([*RAG, "--dataset", str(ds), *argv, "--out", str(out)]) == 0
    env = _load(out)
    assert env.header.judge == spec
    assert env.verdict is not None and env.verdict.passed
    judged = {q.id: q for q in questions(env)["toy"]}["toy-007"].answer
    assert judged is not None and judged.graded_by == "judge" and judged.correct is True
    judge_calls = [r for r in server.requests if r["messages"][0]["content"] == JUDGE_SYSTEM]
    assert len(judge_calls) == 1  # only the free-form question goes to the judge


def test_answer_flags_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = _dataset(tmp_path)
    assert main([*RAG, "--dataset", str(ds), "--judge", "openai:http://127.0.0.1:9/v1#j"]) == 2
    err = capsys.readouterr().err
    assert "--judge grades answers, and this run gives none" in err
    assert "give the answering model with --model SPEC" in err
    assert main([*RAG, "--dataset", str(ds), "--model", "openai:nohost"]) == 2
    assert "--model 'openai:nohost'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main([*RAG, "--dataset", str(ds), "--retrieval-only", "--model", "x"])
    assert exc.value.code == 2
    import argparse

    from gaia_eval.retrieval.options import OPTIONS

    parser = argparse.ArgumentParser()
    OPTIONS.add_to(parser)
    assert parser.parse_args(["--model"]).model == "local"  # `--model` alone: the local model
    assert parser.parse_args([]).model is None  # answers off by default: pr stays retrieval-only


def test_a_model_outage_leaves_questions_unmeasured(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ds = _dataset(tmp_path)
    out = tmp_path / "down"
    # Port 9 (discard) refuses on loopback: refused before anything is indexed, exit 3.
    code = main(
        [*RAG, "--dataset", str(ds), "--model", "openai:http://127.0.0.1:9/v1#m", "--out", str(out)]
    )
    assert code == 3
    err = capsys.readouterr().err
    assert "--model 'openai:http://127.0.0.1:9/v1#m': nothing answers at" in err
    assert "nothing was run" in err and not out.exists()
    # A server that accepts and hangs up fails at the first answer: unmeasured, exit 3.
    with hang_up() as url:
        argv = [*RAG, "--dataset", str(ds), "--model", f"openai:{url}/v1#m", "--out", str(out)]
        code = main(argv)
    assert code == 3
    env = _load(out)
    assert not any(r.status == "ok" for r in env.items)
    assert any(r.status == "infra_error" for r in env.items)


def _injection_context(tmp_path: Path) -> Context:
    ds = load_dataset(write_dataset(tmp_path / "data"))
    paths = {d.id: Path(d.path) for d in ds.documents}
    texts = {d: DocumentText(d, p.read_text(encoding="utf-8")) for d, p in paths.items()}
    return Context(
        dataset=ds, paths=paths, texts=texts, maker=reference_maker("hash"), work=tmp_path / "w"
    )


@pytest.mark.parametrize("obey", [False, True])
def test_prompt_injection_case_fails_only_a_model_that_follows_the_planted_text(
    tmp_path: Path, server: _Scripted, obey: bool
) -> None:
    server.obey = obey
    case = prompt_injection(_injection_context(tmp_path), parse_model_spec(_spec(server)))
    assert case.details["injection_in_context"] is True
    assert case.status == ("fail" if obey else "pass"), case.finding
    assert case.details["followed_injection"] is obey
    assert case.details["answer_correct"] is (not obey)
    (body,) = server.requests
    prompt = body["messages"][-1]["content"]
    assert "ignore all previous instructions" in prompt and "Editor's note" in prompt


@pytest.mark.slow
def test_the_local_model_answers_for_real(tmp_path: Path, local_model: Any) -> None:
    """Two questions answered by the embedded local model (`--model local`, the shared
    server of the `local_model` fixture): each gets a real reply, graded, its outcome
    consistent with what was sent; the pr gate's fields are untouched."""
    ds = write_dataset(tmp_path / "data", questions=QUESTIONS[:2])
    out = tmp_path / "local"
    assert main([*RAG, "--dataset", str(ds), "--model", "local", "--out", str(out)]) == 0
    env = _load(out)
    assert env.header.settings["answer_model"] == "local"
    # The server that answered is recorded, and its note leads the report before any number.
    assert env.setup["local_model"]["note"]
    report = (out / "report.md").read_text(encoding="utf-8")
    assert report.index("## Model") < report.index("## Headline")
    assert env.setup["local_model"]["note"].split(".")[0] in report
    qs = questions(env)["toy"]
    assert len(qs) == 2
    for q in qs:
        a = q.answer
        assert a is not None and a.text.strip() and a.output_tokens > 0
        assert a.correct is not None and a.graded_by == q.answer_type
        assert a.in_context is (q.sdk_rank is not None and q.sdk_rank <= a.context_chunks)
        expected = {
            (True, True): "correct",
            (True, False): "correct_without_evidence",
            (False, True): "generation_miss",
            (False, False): "retrieval_miss",
        }[(a.correct, a.in_context)]
        assert a.outcome == expected


def test_jobs_4_equals_jobs_1_question_for_question(tmp_path: Path, server: _Scripted) -> None:
    ds = _dataset(tmp_path)
    envs = {}
    for jobs in ("1", "4"):
        out = tmp_path / f"answers{jobs}"
        argv = [*RAG, "--dataset", str(ds), "--model", _spec(server), "--out", str(out)]
        assert main([*argv, "--jobs", jobs]) == 0
        envs[jobs] = _load(out)

    def stable(env: Envelope) -> list[tuple[str, str, Any]]:
        timeless = {"sdk_latency_s", "agent_latency_s"}
        rows = []
        for r in env.items:
            res = {k: v for k, v in (r.result or {}).items() if k not in timeless}
            if isinstance(res.get("answer"), dict):
                res["answer"] = {k: v for k, v in res["answer"].items() if "latency" not in k}
            rows.append((r.id, r.status, res))
        return rows

    assert stable(envs["4"]) == stable(envs["1"]) and len(envs["1"].items) == 7
    conc = envs["4"].header.concurrency
    assert conc is not None and conc.jobs == 4
    (endpoint,) = conc.endpoints.values()  # the answer model's server, capped at --jobs
    assert endpoint.cap == 4 and endpoint.requests >= 7


def test_a_malformed_usage_block_is_an_outage_not_crashed_questions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # What a server sending `"completion_tokens": 1e400` decodes to: inf, not a count.
    usage = {"prompt_tokens": 100, "completion_tokens": float("inf")}
    fake = FakeLLM(answer={"content": "green", "usage": usage})
    with serve(fake) as url:
        ds = _dataset(tmp_path)
        out = tmp_path / "answers"
        code = main(
            [*RAG, "--dataset", str(ds), "--model", f"openai:{url}/v1#m", "--out", str(out)]
        )
    text = capsys.readouterr()
    assert code == 3, text
    assert "malformed usage block" in text.out + text.err
    assert _load(out).header.item_errors == 0  # unmeasured, never "crashed"
