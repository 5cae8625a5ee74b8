"""Document retrieval (RAG) benchmark: is the labelled evidence found, by which pipeline?

It measures at what cost, too (index throughput, memory, latency).

Suite `pr` runs the committed `repo_docs` dataset with the real ONNX embedder, offline and
deterministic, plus the six PR hard cases; `--gate BASELINE` compares it with a committed
results.json (exit 1 on a regression, 3 when the runs are not comparable).
`--compare BASELINE CURRENT` gates two existing results files without running anything.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gaia_eval.core.errors import GateFailedError, InvalidInputError

FULL_SUITE_REFUSAL = (
    "--suite full is not available in this build: it needs downloaded corpora "
    "(technical_docs, FinanceBench, XQuAD, Wikipedia distractors for the scale tiers), "
    "answer generation and judging with a chat model, and a vision model for PDF images; "
    "none of these ship offline. Run --suite pr, or point --dataset FILE / --beir DIR at "
    "your own labelled data"
)


EPILOG = (
    "The committed baseline of --suite pr is gaia_eval/baselines/retrieval/pr.json "
    "(nox -s retrieval_pr gates against it). Exit codes: 0 ok, 1 gate failed, 2 bad input "
    "(a label that is not in its document names the question), 3 not comparable, "
    "4 eval lock held."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.add_argument(
        "--suite",
        choices=("pr", "full"),
        default="pr",
        help="pr: committed repo_docs dataset + PR hard cases, offline (default)",
    )
    parser.add_argument(
        "--dataset",
        action="append",
        type=Path,
        default=[],
        metavar="FILE",
        help="run this labelled dataset file instead of the suite's (repeatable)",
    )
    parser.add_argument(
        "--beir",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="run a BEIR folder (corpus.jsonl, queries.jsonl, qrels/*.tsv) (repeatable)",
    )
    parser.add_argument(
        "--embedder",
        metavar="SPEC",
        help="embedder of the reference system: onnx:<model> (default "
        "onnx:all-MiniLM-L6-v2-int8), hash, openai:<base_url>#<model>, "
        "sentence-transformers:<model>",
    )
    parser.add_argument(
        "--system",
        metavar="MODULE:FACTORY",
        help="your own retriever (gaia_eval.systems.rag.protocol.Retriever) instead of the "
        "reference system",
    )
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help="results folder (default eval/results/...)"
    )
    parser.add_argument(
        "--gate", type=Path, metavar="BASELINE", help="gate against this baseline results.json"
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=0.02,
        help="allowed metric drop, widened to 1.5 questions on small sets (default 0.02)",
    )
    parser.add_argument("--no-hard-cases", action="store_true", help="skip the hard cases")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="compute every vector (skip the shared embedding cache under $GAIA_EVAL_CACHE; "
        "cached vectors are bit-identical, so runs compare either way)",
    )
    parser.add_argument(
        "--keep-work", action="store_true", help="keep the temporary index caches and copies"
    )
    parser.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("BASELINE", "CURRENT"),
        help="gate two existing results.json files and stop (no run)",
    )


def _summary_lines(results: object) -> list[str]:
    from gaia_eval.retrieval.models import RetrievalResults

    assert isinstance(results, RetrievalResults)
    lines = []
    for ds in results.datasets:
        s = ds.summary
        ix = ds.index
        lines.append(
            f"{ds.dataset}: {s.questions} questions | sdk R@5 {s.sdk.recall_at_5:.3f} "
            f"MRR {s.sdk.mrr:.3f} | agent R@returned {s.agent.recall_at_returned:.3f} "
            f"(mean {s.agent.mean_returned:.2f} returned)"
            + (f" | {ix.chunks} chunks, {ix.chunks_per_s:.1f} chunks/s" if ix else "")
        )
    if results.hard_cases is not None:
        counts: dict[str, int] = {}
        for case in results.hard_cases:
            counts[case.status] = counts.get(case.status, 0) + 1
        lines.append(
            "hard cases: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        )
    return lines


def run(args: argparse.Namespace) -> int:
    from gaia_eval.embed.cache import disabled

    with disabled(args.no_cache):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from gaia_eval.retrieval import gate, report, runner

    if args.tolerance < 0:
        msg = f"--tolerance must be >= 0, got {args.tolerance}"
        raise InvalidInputError(msg)
    if args.compare:
        base_path, cur_path = args.compare
        verdict = gate.compare(
            runner.load_results(base_path), runner.load_results(cur_path), args.tolerance
        )
        print("\n".join(report.render_gate(verdict)))
        return _verdict_exit(verdict, base_path)
    if args.suite == "full":
        raise InvalidInputError(FULL_SUITE_REFUSAL)
    if args.system and args.embedder:
        msg = (
            "--embedder configures the reference system; a --system retriever brings its own "
            "embedder (reported by its info()); drop one of the two flags"
        )
        raise InvalidInputError(msg)

    from gaia_eval.retrieval.systems import DEFAULT_EMBEDDER, plugin_maker, reference_maker

    sources = [runner.DatasetSource("file", p, str(p)) for p in args.dataset]
    sources += [runner.DatasetSource("beir", p, f"beir:{p}") for p in args.beir]
    if not sources:
        from gaia_eval.retrieval.dataset import builtin_dataset_path

        sources = [
            runner.DatasetSource("builtin", builtin_dataset_path("repo_docs"), "builtin:repo_docs")
        ]
    embedder = args.embedder or ("" if args.system else DEFAULT_EMBEDDER)
    maker = plugin_maker(args.system) if args.system else reference_maker(embedder)
    baseline = runner.load_results(args.gate) if args.gate else None
    if baseline is not None:
        # Refuse unlike runs before minutes of indexing; the full check runs at the end.
        gate.refuse_unlike(
            baseline,
            suite=args.suite,
            embedder=None if args.system else embedder,
            vlm_enabled=None,
        )
    outcome = runner.run(
        runner.RunOptions(
            suite=args.suite,
            sources=sources,
            maker=maker,
            embedder=embedder,
            out_dir=args.out,
            hard_cases=not args.no_hard_cases,
            keep_work=args.keep_work,
            baseline=baseline,
            tolerance=args.tolerance,
        )
    )
    print(f"results: {outcome.out_dir / 'results.json'}")
    print("\n".join(_summary_lines(outcome.results)))
    if outcome.verdict is None:
        return 0
    print("\n".join(report.render_gate(outcome.verdict)))
    return _verdict_exit(outcome.verdict, args.gate)


def _verdict_exit(verdict: object, baseline: Path) -> int:
    from gaia_eval.retrieval.gate import GateVerdict

    assert isinstance(verdict, GateVerdict)
    if verdict.passed:
        return 0
    msg = f"gate failed against {baseline}: " + "; ".join(verdict.failures)
    raise GateFailedError(msg)
