"""Code retrieval: semantic code search on real repositories vs a grep baseline, indexing cost,
and cache damage. Writes results.json + report.md; `--gate BASELINE` exits 1 on a regression.

The flags of `gaia-eval run code-retrieval` (alias `retrieval --component code`) and the
suite they build.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from gaia_eval.core.options import RUN, Option, Options, SuiteCommand, tier

if TYPE_CHECKING:
    from gaia_eval.code_retrieval.suite import CodeRetrievalSuite

OPTIONS = Options.of(
    tier(
        ("offline", "pr", "nightly", "scale"),
        "pr",
        "offline: a generated repository (CI); pr: 11 pinned SWE-bench instances; "
        "nightly: a seeded sample; scale: fresh-index cost of pinned repositories",
    ),
    Option(
        "--parts",
        "run only these parts of the suite (a filtered run; the gate fails the parts it skipped)",
        kind="many",
        choices=("quality", "incremental", "robustness", "scale"),
    ),
    Option("--work-root", "bare-clone cache and scratch (default <tmp>/gaia-eval-work)", Path),
    Option(
        "--embedder",
        "embedder spec: hash, onnx:<model>, openai:<url>#<model>",
        default="hash",
    ),
    Option("--system", "module:factory of your own CodeIndex builder"),
    Option(
        "--instances-file",
        "SWE-bench rows as JSONL (instance_id, repo, base_commit, problem_statement, patch); "
        "--suite pr defaults to its 11 pinned rows shipped in the package",
        Path,
        metavar="FILE",
    ),
    Option("--git-mirror", "folder of local clones named owner+name (air-gapped runs)", Path),
    Option(
        "--url-template",
        "clone URL template, {repo} is owner/name",
        default="https://github.com/{repo}.git",
    ),
    Option(
        "--offline",
        "never touch the network: clones only from --git-mirror, the clone cache or a local "
        "--url-template; instances only from --instances-file or the download cache",
        kind="switch",
    ),
    Option(
        "--datasets-url",
        "Hugging Face datasets-server base URL (for instance rows)",
        default="https://datasets-server.huggingface.co",
    ),
    Option(
        "--no-cache",
        "compute every vector (skip the shared embedding cache; always off for --suite "
        "scale, which measures fresh-index cost)",
        kind="switch",
    ),
    RUN,
)


def _check(args: argparse.Namespace) -> None:
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


def build(args: argparse.Namespace) -> CodeRetrievalSuite:
    from gaia_eval.code_retrieval.runner import RunOptions
    from gaia_eval.code_retrieval.suite import CodeRetrievalSuite

    _check(args)
    return CodeRetrievalSuite(
        RunOptions(
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
    )


def main(args: argparse.Namespace) -> int:
    from gaia_eval.core.launch import run_suite
    from gaia_eval.embed.cache import disabled

    with disabled(args.no_cache or args.suite == "scale"):
        return run_suite(build(args), args)


COMMAND = SuiteCommand(
    "code-retrieval",
    ("retrieval", "--component", "code"),
    "Code retrieval: semantic code search on real repositories vs a grep baseline.",
    OPTIONS,
    main,
)
