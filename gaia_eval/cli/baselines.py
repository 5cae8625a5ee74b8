"""`gaia-eval baselines`: the baselines shipped in the package and how to name them."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

NAME = "baselines"
HELP = (
    "List the committed baselines shipped in the package and the short names --gate "
    "accepts (e.g. --gate pr, --gate builtin:retrieval/pr)."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--suite",
        metavar="FOLDER",
        help="only this suite folder (retrieval, code-retrieval, tasks, ...)",
    )
    parser.add_argument(
        "--paths", action="store_true", help="print only the file paths, one per line"
    )


def _describe(path: Path) -> str:
    """Suite and embedder as the file records them (older files keep their own format, the
    engine's envelope says them in its header), or '' when the file does not say."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "(unreadable)"
    if not isinstance(data, dict):
        return ""
    meta = data["meta"] if isinstance(data.get("meta"), dict) else {}
    env = data["environment"] if isinstance(data.get("environment"), dict) else {}
    head = data["header"] if isinstance(data.get("header"), dict) else {}  # engine envelope
    suite = data.get("suite") or meta.get("suite") or head.get("tier")
    embedder = meta.get("embedder") or env.get("embedding_model") or head.get("embedder")
    bits = [f"suite {suite}" if suite else "", f"embedder {embedder}" if embedder else ""]
    return ", ".join(b for b in bits if b)


def run(args: argparse.Namespace) -> int:
    from gaia_eval.core import baselines
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.core.suite import gate_command_for

    found = baselines.available(args.suite)
    if args.suite and not found:
        folders = ", ".join(sorted({b.suite for b in baselines.available()}))
        msg = f"--suite {args.suite}: no baselines ship for it; suite folders: {folders}"
        raise InvalidInputError(msg)
    if args.paths:
        print("\n".join(str(b.path) for b in found))
        return 0
    # Each suite registers its own (core/suites.toml); each command runs as printed.
    rows = [(b.ref, gate_command_for(b.suite, b.name), _describe(b.path)) for b in found]
    widths = [max(len(r[i]) for r in rows) for i in range(2)] if rows else [0, 0]
    for ref, use, what in rows:
        print(f"{ref:<{widths[0]}}  {use:<{widths[1]}}  {what}".rstrip())
    print(f"\n{len(rows)} baseline(s) in {baselines.root()}")
    if any(" DIR " in use for _, use, _ in rows):
        print("DIR: the folder of a finished run to gate (its --out)")
    return 0
