"""`gaia-eval sessions`: replay recorded Claude Code sessions and judge the answers."""

from __future__ import annotations

import argparse
from pathlib import Path

from gaia_eval.cli._runflags import add_run_flags

NAME = "sessions"
HELP = "Score an agent against your recorded Claude Code sessions (replay + judge)."


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        msg = f"expected an integer >= 1, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("cases")
    g.add_argument(
        "--claude-dir", type=Path, help="Claude Code projects folder (default ~/.claude/projects)"
    )
    g.add_argument("--project", help="only the sessions of this project folder")
    g.add_argument("--limit", type=_positive, default=10, help="how many cases (default 10)")
    g.add_argument("--focus", help="only cases with this tag (code, repo, explain, search, docs)")
    g.add_argument(
        "--dataset-only", action="store_true", help="write dataset.json and stop (no agent, judge)"
    )
    add_run_flags(parser)


def _default_out() -> Path:
    from gaia_eval.core.runmeta import timestamp_slug

    return Path("eval") / "results" / f"sessions-{timestamp_slug()}"


def run(args: argparse.Namespace) -> int:
    from gaia_eval.sessions.privacy import check_private

    if args.out is None and args.resume is None:
        args.out = _default_out()
    if args.out is not None:
        check_private(args.out)
    if args.resume is not None:
        check_private(args.resume, "--resume")
    if args.dataset_only:
        return _dataset_only(args)
    from gaia_eval.core.errors import InvalidInputError

    msg = "sessions: replay is not built yet; use --dataset-only"
    raise InvalidInputError(msg)


def _dataset_only(args: argparse.Namespace) -> int:
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.core.results_io import write_json
    from gaia_eval.sessions.dataset import build_dataset, default_claude_dir, discover

    out: Path = args.out
    if out.exists() and any(out.iterdir()):
        msg = f"--out {out}: folder is not empty; choose a new one"
        raise InvalidInputError(msg)
    files = discover(args.claude_dir or default_claude_dir(), args.project)
    ds = build_dataset(files, limit=args.limit, focus=args.focus)
    path = write_json(out / "dataset.json", ds)
    print(
        f"sessions: {ds.sessions_scanned} session(s), {ds.turns_extracted} exchange(s), "
        f"{len(ds.cases)} case(s) selected"
    )
    print(f"  dataset: {path}")
    return 0
