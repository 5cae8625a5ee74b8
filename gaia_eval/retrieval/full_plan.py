"""The set-up of `retrieval --component rag --suite full` and `--fetch-only` (its flags:
gaia_eval/retrieval/options.py).

The corpora come from the checked cache (gaia_eval/retrieval/sources.py): `--fetch-only`
downloads and verifies what the (narrowed) run needs and stops; `--offline` never opens a
connection and names what is missing; a run without `--offline` fetches what is missing
first. Then the datasets are built from the cache (gaia_eval/retrieval/full.py).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gaia_eval.core.errors import InvalidInputError

if TYPE_CHECKING:
    from gaia_eval.retrieval.full import FullOptions
    from gaia_eval.retrieval.runner import DatasetSource
    from gaia_eval.retrieval.scale import ScalePlan
    from gaia_eval.retrieval.sources import Corpus

DEFAULT_TIERS = (10, 100, 1000)


@dataclass
class FullPlan:
    """What a configured full run uses."""

    options: FullOptions
    corpus: Corpus
    scale: ScalePlan | None
    hard_cases: bool


def _options(args: argparse.Namespace) -> FullOptions:
    from gaia_eval.retrieval.full import FullOptions, parse_datasets, parse_languages

    datasets, named = (
        parse_datasets(args.datasets) if args.datasets else (FullOptions().datasets, ())
    )
    if named and args.xquad_languages:
        msg = (
            f"--datasets names XQuAD languages ({', '.join('xquad-' + n for n in named)}) and "
            "--xquad-languages narrows them too; use one of the two"
        )
        raise InvalidInputError(msg)
    langs = (
        parse_languages(args.xquad_languages)
        if args.xquad_languages
        else named or FullOptions().xquad_languages
    )
    if args.xquad_languages and "xquad" not in datasets:
        msg = "--xquad-languages narrows the xquad dataset, which --datasets leaves out"
        raise InvalidInputError(msg)
    if args.financebench_docs and "financebench" not in datasets:
        msg = "--financebench-docs narrows the financebench dataset, which --datasets leaves out"
        raise InvalidInputError(msg)
    return FullOptions(datasets, langs, args.financebench_docs)


def plan(args: argparse.Namespace) -> FullPlan:
    """Fetch (or, offline, require) every file the run needs; the plan to build it from."""
    from gaia_eval.retrieval import full
    from gaia_eval.retrieval.scale import (
        ANN_FROM,
        ScalePlan,
        distractor_file,
        wikipedia_usable,
    )
    from gaia_eval.retrieval.sources import Corpus, load_manifest

    if args.no_scale and args.scale_tiers:
        msg = "--no-scale and --scale-tiers contradict each other; drop one"
        raise InvalidInputError(msg)
    opts = _options(args)
    corpus = Corpus(load_manifest(args.sources), pin_unverified=bool(args.pin_unverified))
    hard = args.hard_cases is not False
    wanted = full.first_files(opts)
    scale = None
    # The tiers pad repo_docs' documents: a run narrowed without it has none, unless asked.
    if not args.no_scale and ("repo_docs" in opts.datasets or args.scale_tiers):
        if "repo_docs" not in opts.datasets:
            msg = (
                "the scale tiers pad repo_docs' most-questioned documents with distractors; "
                "keep repo_docs in --datasets or pass --no-scale"
            )
            raise InvalidInputError(msg)
        use_wiki = args.distractors == "wikipedia" or (
            args.distractors == "auto" and wikipedia_usable(corpus)
        )
        scale = ScalePlan(
            tiers=args.scale_tiers or DEFAULT_TIERS,
            distractors="wikipedia" if use_wiki else "generated",
            ann_from=args.ann_from or ANN_FROM,
        )
        if use_wiki:
            wanted.append(distractor_file())
    corpus.fetch(wanted, offline=args.offline)
    corpus.fetch(full.second_files(corpus, opts, hard), offline=args.offline)
    if corpus.pinned:  # the run header says it before anything runs; the report repeats it
        from gaia_eval.retrieval.sources import PINNED_NOTE

        print(
            f"corpus: {len(corpus.pinned)} file(s) {PINNED_NOTE} "
            f"(pins in {corpus.pin_path}): {', '.join(sorted(map(str, corpus.pinned)))}",
            flush=True,
        )
    return FullPlan(opts, corpus, scale, hard)


def fetch_only(args: argparse.Namespace) -> int:
    p = plan(args)
    files = sorted(p.corpus.checked, key=str)
    total = sum(p.corpus.target(w).stat().st_size for w in files)
    print(f"{len(files)} corpus files verified in {p.corpus.root} ({total / 2**20:.1f} MiB)")
    return 0


def dataset_sources(p: FullPlan) -> list[DatasetSource]:
    """The run's datasets, each built from the checked cache when the suite loads it."""
    from functools import partial

    from gaia_eval.retrieval import full
    from gaia_eval.retrieval.dataset import builtin_dataset_path
    from gaia_eval.retrieval.runner import DatasetSource

    derived = p.corpus.root / "derived"
    out: list[DatasetSource] = []
    if p.options.wants("repo_docs"):
        out.append(DatasetSource("builtin", builtin_dataset_path("repo_docs"), "builtin:repo_docs"))
    if p.options.wants("technical_docs"):
        out.append(
            DatasetSource(
                "corpus",
                full.TECHNICAL,
                "corpus:technical_docs",
                partial(full.technical_docs, p.corpus, derived),
            )
        )
    if p.options.wants("financebench"):
        out.append(
            DatasetSource(
                "corpus",
                p.corpus.target(full.FB_QUESTIONS),
                "corpus:financebench",
                partial(full.financebench, p.corpus, p.options),
            )
        )
    if p.options.wants("xquad"):
        for lang in p.options.xquad_languages:
            out.append(
                DatasetSource(
                    "corpus",
                    p.corpus.root / "xquad" / f"xquad.{lang}.json",
                    f"corpus:xquad.{lang}",
                    partial(full.xquad, p.corpus, lang, derived, full.XQUAD_PER_LANGUAGE),
                )
            )
    return out


def suite_extras(p: FullPlan) -> dict[str, Any]:
    """RagSuite keyword arguments of a full run: its scale plan, the Wikipedia file, the
    near-duplicate filings."""
    from gaia_eval.retrieval import full
    from gaia_eval.retrieval.scale import distractor_file

    out: dict[str, Any] = {
        "scale_plan": p.scale,
        "license_notes": p.corpus.manifest.license_notes(),
    }
    if p.scale is not None and p.scale.distractors == "wikipedia":
        out["wikipedia"] = p.corpus.check(distractor_file())
    if p.hard_cases and p.options.wants("financebench"):
        docs = full.financebench_docs(p.corpus, p.options)
        out["near_duplicates"] = {
            company: [p.corpus.check(full.pdf_file(d)) for d in filings]
            for company, filings in full.near_duplicate_filings(p.corpus, docs).items()
        }
    out["pinned_files"] = sorted(map(str, p.corpus.pinned))
    return out
