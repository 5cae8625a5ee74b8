"""Code retrieval: semantic code search on real repositories vs a grep baseline, indexing cost,
and cache damage. Writes results.json + report.md; `--gate BASELINE` exits 1 on a regression.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from gaia_eval.cli._runflags import add_run_flags

    parser.add_argument(
        "--suite",
        default="pr",
        choices=["offline", "pr", "nightly", "scale"],
        help="offline: a generated repository (CI); pr: 11 pinned SWE-bench instances; "
        "nightly: a seeded sample; scale: fresh-index cost of pinned repositories",
    )
    parser.add_argument(
        "--parts",
        nargs="+",
        choices=["quality", "incremental", "robustness", "scale"],
        help="run only these parts of the suite (a filtered run; the gate fails the parts "
        "it skipped)",
    )
    parser.add_argument(
        "--work-root", type=Path, help="bare-clone cache and scratch (default <tmp>/gaia-eval-work)"
    )
    parser.add_argument(
        "--embedder", default="hash", help="embedder spec: hash, onnx:<model>, openai:<url>#<model>"
    )
    parser.add_argument("--system", help="module:factory of your own CodeIndex builder")
    parser.add_argument(
        "--instances-file",
        type=Path,
        metavar="FILE",
        help="SWE-bench rows as JSONL (instance_id, repo, base_commit, problem_statement, "
        "patch); --suite pr defaults to its 11 pinned rows shipped in the package",
    )
    parser.add_argument(
        "--git-mirror", type=Path, help="folder of local clones named owner+name (air-gapped runs)"
    )
    parser.add_argument(
        "--url-template",
        default="https://github.com/{repo}.git",
        help="clone URL template, {repo} is owner/name",
    )
    parser.add_argument(
        "--offline",
        action="store_true",
        help="never touch the network: clones only from --git-mirror, the clone cache or a "
        "local --url-template; instances only from --instances-file or the download cache",
    )
    parser.add_argument(
        "--datasets-url",
        default="https://datasets-server.huggingface.co",
        help="Hugging Face datasets-server base URL (for instance rows)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="compute every vector (skip the shared embedding cache; always off for --suite "
        "scale, which measures fresh-index cost)",
    )
    add_run_flags(parser)


def _check_flags(args: argparse.Namespace) -> None:
    from gaia_eval.core.errors import InvalidInputError

    if not args.embedder.strip():
        msg = "--embedder '': give an embedder spec (e.g. hash, onnx:all-MiniLM-L6-v2-int8)"
        raise InvalidInputError(msg)
    if args.offline:
        import os
        from urllib.parse import urlsplit

        kind, _, rest = args.embedder.partition(":")
        host = urlsplit(rest.partition("#")[0]).hostname or ""
        if kind == "openai" and host not in ("127.0.0.1", "::1", "localhost"):
            msg = (
                f"--offline: --embedder {args.embedder} would reach {host or 'the network'}; "
                "use a local embedder (hash, onnx:<model>) or a server on 127.0.0.1"
            )
            raise InvalidInputError(msg)
        # Model hubs (sentence-transformers) then use their local cache or fail, never fetch.
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"


def run(args: argparse.Namespace) -> int:
    from gaia_eval.embed.cache import disabled

    with disabled(args.no_cache or args.suite == "scale"):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from gaia_eval.cli._runflags import run_suite
    from gaia_eval.code_retrieval.runner import RunOptions
    from gaia_eval.code_retrieval.suite import CodeRetrievalSuite

    _check_flags(args)

    opts = RunOptions(
        suite=args.suite,
        parts=args.parts,
        work_root=args.work_root,
        embedder=args.embedder,
        system=args.system,
        instances_file=args.instances_file,
        git_mirror=args.git_mirror,
        url_template=args.url_template,
        offline=args.offline,
        datasets_url=args.datasets_url,
    )
    return run_suite(CodeRetrievalSuite(opts), args)
