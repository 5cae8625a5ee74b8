"""Document retrieval (RAG) benchmark: is the labelled evidence found, by which pipeline?

It measures at what cost, too (index throughput, memory, latency).

Suite `pr` runs the committed `repo_docs` dataset with the real ONNX embedder, offline and
deterministic, plus the six PR hard cases; `--model SPEC` also answers every question from
the retrieved chunks and grades the answers (reported, never gated); `--dataset FILE` /
`--beir DIR` run your own labelled data instead (the hard cases only with `--hard-cases`).
`--gate BASELINE` compares the run with a baseline (exit 1 on a regression, 3 when the
runs are not comparable); `--compare BASELINE CURRENT` gates two existing results files
without running anything. The suite runs on the engine: `--resume DIR`, `--shard I/N` and
`gaia-eval merge` work as for every suite.

The flags of `gaia-eval run retrieval-rag` (alias `retrieval --component rag`) and the
suite they build.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from gaia_eval.core.errors import GateFailedError, InvalidInputError
from gaia_eval.core.options import (
    RUN,
    TOLERANCE,
    Option,
    Options,
    SuiteCommand,
    non_negative,
    positive_int,
    tier,
)
from gaia_eval.core.rundir import default_run_dir

EPILOG = (
    "The committed baseline of --suite pr is gaia_eval/baselines/retrieval/pr.json "
    "(`--gate pr` or `--gate builtin:retrieval/pr`; nox -s retrieval_pr gates against it). "
    "Exit codes: 0 ok, 1 gate failed or an item crashed, 2 bad input (a label that is not in "
    "its document names the question), 3 not comparable or an outage (resume with --resume "
    "DIR), 4 eval lock held, 130 interrupted and 143 terminated (everything finished is "
    "saved; --resume DIR)."
)


def _tiers(text: str) -> tuple[int, ...]:
    try:
        tiers = tuple(sorted({int(t) for t in text.split(",") if t.strip()}))
    except ValueError:
        msg = f"--scale-tiers {text!r}: give document counts such as 10,100,1000,5000"
        raise argparse.ArgumentTypeError(msg) from None
    if not tiers or tiers[0] < 1:
        msg = f"--scale-tiers {text!r}: give positive document counts such as 10,100,1000"
        raise argparse.ArgumentTypeError(msg)
    return tiers


FULL = Options.of(
    Option(
        "--fetch-only",
        "download and verify every corpus file the full suite (as narrowed) needs, then "
        "stop; the cache is $GAIA_EVAL_CACHE/retrieval (default ~/.cache/gaia-eval/retrieval)",
        kind="switch",
    ),
    Option(
        "--offline",
        "never touch the network: use the cache only, and name what is missing",
        kind="switch",
    ),
    Option(
        "--pin-unverified",
        "trust corpus files the manifest has no sha256 for on first download: download "
        "them once and record their sha256 and size in <cache>/retrieval/pins.json; every "
        "later run checks them against that pin (reported as not verified against a "
        "published hash)",
        kind="switch",
    ),
    Option(
        "--sources",
        "a sources manifest of your own instead of the shipped "
        "gaia_eval/retrieval/data/sources.json (to pin files it leaves unverified)",
        Path,
        metavar="FILE",
    ),
    Option(
        "--datasets",
        "only these full-suite datasets: repo_docs, technical_docs, financebench, xquad "
        "(or xquad-<lang> for one language)",
        metavar="A,B",
    ),
    Option("--xquad-languages", "XQuAD languages (default en,de,es,ru,zh,ar,hi)", metavar="L,L"),
    Option(
        "--financebench-docs",
        "only the first N FinanceBench filings by name (and their questions)",
        positive_int,
        metavar="N",
    ),
    Option(
        "--scale-tiers",
        "scale tiers in documents (default 10,100,1000; 5000 also tries IVF and HNSW)",
        _tiers,
        metavar="N,N",
    ),
    Option("--no-scale", "skip the scale tiers", kind="switch"),
    Option(
        "--ann-from",
        "from tiers of N documents on, also try IVF and HNSW indexes against the flat one "
        "(default 1000)",
        positive_int,
        metavar="N",
    ),
    Option(
        "--distractors",
        "scale-tier distractors: Simple English Wikipedia from the cache, or generated "
        "offline from a shipped public-domain text; auto: Wikipedia when the manifest pins "
        "it with a verified sha256",
        choices=("auto", "wikipedia", "generated"),
        default="auto",
    ),
    title="--suite full (downloaded corpora)",
)

OPTIONS = Options.of(
    tier(
        ("pr", "full"),
        "pr",
        "pr: committed repo_docs dataset + PR hard cases, offline (default); full: adds "
        "technical_docs, FinanceBench and XQuAD from the checked corpus cache, answers "
        "(--model, default local), the scale tiers and the full-only hard cases",
    ),
    Option(
        "--dataset",
        "run this labelled dataset file instead of the suite's (repeatable); the run is "
        "named after the dataset",
        Path,
        kind="append",
        metavar="FILE",
    ),
    Option(
        "--init-dataset",
        "write a small working example dataset (DIR/dataset.json and two documents) and "
        "stop; run it with --dataset DIR/dataset.json (format: docs/datasets.md)",
        Path,
        metavar="DIR",
        record=False,
    ),
    Option(
        "--beir",
        "run a BEIR folder (corpus.jsonl, queries.jsonl, qrels/*.tsv) (repeatable)",
        Path,
        kind="append",
        metavar="DIR",
    ),
    Option(
        "--beir-split",
        "qrels split of every --beir folder (qrels/NAME.tsv; default test)",
        default="test",
        metavar="NAME",
    ),
    Option(
        "--allow-outside",
        "index document files outside their dataset's folder (absolute paths, ../, symlinks "
        "out); the report lists them",
        kind="switch",
    ),
    Option(
        "--embedder",
        "embedder of the reference system: onnx:<model> (default onnx:all-MiniLM-L6-v2-int8), "
        "hash, openai:<base_url>#<model>, sentence-transformers:<model>",
        metavar="SPEC",
    ),
    Option(
        "--system",
        "your own retriever (gaia_eval.systems.rag.protocol.Retriever) instead of the "
        "reference system",
        metavar="MODULE:FACTORY",
    ),
    Option(
        "--hard-cases",
        "run the PR hard cases on a --dataset / --beir run too (suite pr runs them)",
        kind="on",
        exclusive="cases",
    ),
    Option(
        "--no-hard-cases", "skip the hard cases", kind="off", dest="hard_cases", exclusive="cases"
    ),
    Option(
        "--model",
        "answer every question from the sdk pipeline's top chunks with this model (`--model` "
        "alone: the embedded `local` model; openai:<base_url>#<model>, anthropic:<model>, "
        "...) and grade the answers: accuracy and the retrieval / generation miss split are "
        "reported, never gated",
        kind="optional",
        const="local",
        metavar="SPEC",
        exclusive="answers",
    ),
    Option(
        "--retrieval-only",
        "measure retrieval only, no answers (the default without --model)",
        kind="switch",
        exclusive="answers",
    ),
    Option(
        "--judge",
        "grade free-form (`judge`) answers with this model; without it they are counted "
        "unscored, never guessed (needs --model)",
        metavar="SPEC",
    ),
    Option(
        "--vlm",
        "read PDF page images with this OpenAI-compatible vision model "
        "(openai:<base_url>#<model>); it is first made to read a test image, and a model "
        "that fails stops the run. It changes a PDF's chunks, so gates refuse to compare "
        "VLM-on with VLM-off runs. --suite full needs --vlm or --no-vlm; pr never uses one",
        metavar="SPEC",
        exclusive="vlm",
    ),
    Option(
        "--no-vlm",
        "leave PDF page images unread (the pr suite always does)",
        kind="switch",
        exclusive="vlm",
    ),
    Option(
        "--compare",
        "gate two existing results.json files (or shipped names, as --gate: pr, "
        "builtin:retrieval/pr) and stop (no run)",
        Path,
        kind="many",
        metavar=("BASELINE", "CURRENT"),
        record=False,
    ),
    Option(
        "--no-cache",
        "compute every vector (skip the shared embedding cache under $GAIA_EVAL_CACHE; "
        "cached vectors are bit-identical, so runs compare either way)",
        kind="switch",
    ),
    FULL,
    Option(
        "--keep-work",
        "the same as --keep-temp: keep the index caches and document copies",
        kind="switch",
        dest="keep_temp",
        record=False,  # recorded as --keep-temp
    ),
    RUN.replacing(
        Option(
            TOLERANCE.flag,
            "allowed metric drop (default 0.02), widened to 1.5 questions on small sets: "
            "max(tolerance, 1.5/n); finite, >= 0",
            non_negative,
        )
    ),
)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", text)[:80] or "run"


def _compare(args: argparse.Namespace) -> int:
    from gaia_eval.core import baselines
    from gaia_eval.core import gate as gate_engine
    from gaia_eval.core.report import section_markdown, verdict_section
    from gaia_eval.core.results import load_envelope
    from gaia_eval.core.suite import legacy_converters
    from gaia_eval.retrieval.runner import SUITE
    from gaia_eval.retrieval.suite import RagSuite

    # `--compare pr CURRENT`: either side may name a shipped file (core/baselines).
    base_path, cur_path = (baselines.resolve(str(p), "retrieval") for p in args.compare)
    legacy = legacy_converters()
    baseline = load_envelope(base_path, suite=SUITE, legacy=legacy)
    current = load_envelope(cur_path, suite=SUITE, legacy=legacy)
    verdict = gate_engine.compare(
        RagSuite, baseline, current, tolerance=args.tolerance, label=str(base_path)
    )
    print(section_markdown(verdict_section(verdict, RagSuite.item_noun)))
    if verdict.passed:
        return 0
    msg = f"gate failed against {base_path}: " + "; ".join(verdict.failures)
    raise GateFailedError(msg)


# Flags that configure a run; --compare runs nothing, so each would be silently ignored.
_RUN_ONLY = ("--dataset", "--beir", "--gate", "--system", "--embedder", "--out", "--resume",
             "--model", "--judge", "--allow-outside")  # fmt: skip


def _refuse_lenient(args: argparse.Namespace) -> None:
    """--compare used to ignore the run flags silently; --beir-split without --beir too."""
    if args.beir_split != "test" and not args.beir:
        msg = "--beir-split applies to --beir folders only; add --beir DIR or drop the flag"
        raise InvalidInputError(msg)
    if args.compare:
        given = [flag for flag in _RUN_ONLY if getattr(args, OPTIONS[flag].key, None)]
        if given:
            msg = (
                f"--compare gates two existing results files and runs nothing, so "
                f"{', '.join(given)} would be ignored; drop them or drop --compare"
            )
            raise InvalidInputError(msg)


def main(args: argparse.Namespace) -> int:
    from gaia_eval.embed.cache import disabled

    with disabled(args.no_cache):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    if args.init_dataset is not None:
        from gaia_eval.retrieval.example_dataset import write_example

        written = write_example(args.init_dataset)
        print(f"wrote {written} (and its documents under {args.init_dataset / 'docs'})")
        print(f"run it: gaia-eval retrieval --component rag --dataset {written} --embedder hash")
        return 0
    _refuse_lenient(args)
    if args.compare:
        return _compare(args)
    from gaia_eval.retrieval import full_plan

    if args.fetch_only:
        return full_plan.fetch_only(args)
    full = args.suite == "full"
    if full and (args.dataset or args.beir):
        msg = "--suite full runs its own datasets; drop --dataset/--beir (or --suite full)"
        raise InvalidInputError(msg)
    stray = [f for f in FULL.given(args) if f != "--offline"]
    if stray and not full:
        msg = f"{', '.join(stray)}: only with --suite full (or --fetch-only)"
        raise InvalidInputError(msg)
    if args.vlm and not (full or args.dataset or args.beir):
        msg = "--vlm: the pr suite never reads images (every machine scores alike); drop it"
        raise InvalidInputError(msg)
    if full and not (args.vlm or args.no_vlm or args.fetch_only):
        msg = (
            "--suite full reads PDF images through a vision model: pass --vlm "
            "openai:<base_url>#<model>, or --no-vlm to leave them unread (recorded in the "
            "results; gates compare only like with like)"
        )
        raise InvalidInputError(msg)
    if args.vlm and args.system:
        msg = "--vlm configures the reference system; a --system retriever brings its own"
        raise InvalidInputError(msg)
    if full and args.system:
        msg = "--suite full measures the reference system; drop --system (or run --dataset)"
        raise InvalidInputError(msg)
    if args.system and args.embedder:
        msg = (
            "--embedder configures the reference system; a --system retriever brings its own "
            "embedder (reported by its info()); drop one of the two flags"
        )
        raise InvalidInputError(msg)
    if args.embedder is not None and not args.embedder.strip():
        msg = "--embedder '': give an embedder spec (e.g. hash, onnx:all-MiniLM-L6-v2-int8)"
        raise InvalidInputError(msg)

    if args.judge and not args.model:
        msg = "--judge grades answers; give the answering model with --model SPEC too"
        raise InvalidInputError(msg)
    from gaia_eval.llm.spec import parse_model_spec

    model = args.model or ("local" if full and not args.retrieval_only else None)
    answer_model = parse_model_spec(model, "--model") if model else None
    judge = parse_model_spec(args.judge, "--judge") if args.judge else None

    from gaia_eval.retrieval.dataset import builtin_dataset_path
    from gaia_eval.retrieval.runner import DatasetSource
    from gaia_eval.retrieval.suite import RagSuite
    from gaia_eval.retrieval.systems import DEFAULT_EMBEDDER, plugin_maker, reference_maker

    sources = [
        DatasetSource("file", p, str(p), allow_outside=args.allow_outside) for p in args.dataset
    ]
    sources += [DatasetSource("beir", p, f"beir:{p}", split=args.beir_split) for p in args.beir]
    custom = bool(sources)
    plan = full_plan.plan(args) if full else None
    if plan is not None:
        sources = full_plan.dataset_sources(plan)
    elif not custom:
        path = builtin_dataset_path("repo_docs")
        sources = [DatasetSource("builtin", path, "builtin:repo_docs")]
    embedder = args.embedder or ("" if args.system else DEFAULT_EMBEDDER)
    maker = plugin_maker(args.system) if args.system else reference_maker(embedder, args.vlm)
    suite = RagSuite(
        tier=None if custom else args.suite,  # None: titled and foldered by its datasets
        sources=sources,
        maker=maker,
        embedder=embedder,
        # The PR hard cases belong to the pr suite; a run of your own data asks for them.
        hard_cases=args.hard_cases if args.hard_cases is not None else not custom,
        answer_model=answer_model,
        judge=judge,
        **(full_plan.suite_extras(plan) if plan is not None else {}),
        vlm=args.vlm,
    )
    if answer_model is not None or judge is not None:
        from gaia_eval.llm.local_server import local_server_for

        # Started now: the header records what serves a `local` spec, and a server that
        # cannot start stops the run before anything is indexed.
        suite.local_model = local_server_for(answer_model, judge)
    if args.vlm:
        from gaia_eval.systems.rag.vlm import VisionModel

        # Before anything is indexed: a VLM that cannot read stops the run with its error.
        VisionModel(args.vlm).probe()
    if args.out is None and args.resume is None:
        args.out = default_run_dir(f"retrieval-rag-{_slug(suite.run_tier())}")
    from gaia_eval.core.launch import run_suite

    return run_suite(suite, args)


COMMAND = SuiteCommand(
    "retrieval-rag",
    ("retrieval", "--component", "rag"),
    "Document retrieval (RAG): is the labelled evidence found, by which pipeline?",
    OPTIONS,
    main,
    epilog=EPILOG,
)
