"""Code retrieval: semantic code search on real repositories vs a grep baseline, indexing cost,
and cache damage. Writes results.json + report.md; `--gate BASELINE` exits 1 on a regression.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--suite",
        default="pr",
        choices=["offline", "pr", "nightly", "scale"],
        help="offline (generated repo, CI), pr (11 SWE-bench instances), nightly, scale",
    )
    parser.add_argument(
        "--parts", nargs="+", choices=["quality", "incremental", "robustness", "scale"]
    )
    parser.add_argument("--out", type=Path, help="run folder (default eval/results/...)")
    parser.add_argument("--work-root", type=Path, help="clones, caches, scratch (default <tmp>)")
    parser.add_argument("--embedder", default="hash", help="embedder spec (hash, onnx:<model>...)")
    parser.add_argument("--system", help="module:factory of your own CodeIndex")
    parser.add_argument("--instances-file", type=Path, help="SWE-bench rows as JSONL")
    parser.add_argument("--git-mirror", type=Path, help="folder of clones named owner+name")
    parser.add_argument(
        "--url-template", default="https://github.com/{repo}.git", help="clone URL template"
    )
    parser.add_argument("--offline", action="store_true", help="never touch the network")
    parser.add_argument(
        "--datasets-url",
        default="https://datasets-server.huggingface.co",
        help="HF datasets-server base URL",
    )
    parser.add_argument("--gate", type=Path, help="baseline results.json to gate against")
    parser.add_argument("--tolerance", type=float, default=0.05, help="max metric drop")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="compute every vector (skip the shared embedding cache; always off for --suite "
        "scale, which measures fresh-index cost)",
    )


def run(args: argparse.Namespace) -> int:
    from gaia_eval.embed.cache import disabled

    with disabled(args.no_cache or args.suite == "scale"):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from gaia_eval.code_retrieval.runner import RunOptions
    from gaia_eval.code_retrieval.runner import run as run_suite
    from gaia_eval.core.lock import eval_lock

    opts = RunOptions(
        suite=args.suite,
        parts=args.parts,
        out=args.out,
        work_root=args.work_root,
        embedder=args.embedder,
        system=args.system,
        instances_file=args.instances_file,
        git_mirror=args.git_mirror,
        url_template=args.url_template,
        offline=args.offline,
        datasets_url=args.datasets_url,
        gate=args.gate,
        tolerance=args.tolerance,
    )
    with eval_lock(f"retrieval --component code --suite {args.suite}"):
        results, out = run_suite(opts)
    print(f"results: {out / 'results.json'}\nreport:  {out / 'report.md'}")
    if results.comparison is not None:
        if not results.comparison.get("passed"):
            failures = results.comparison.get("failures")
            for line in failures if isinstance(failures, list) else []:
                print(f"gate: {line}")
            print("gate: FAIL")
            return 1
        print("gate: pass")
    return 0
