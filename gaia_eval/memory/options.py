"""The memory suite's flags (`gaia-eval run memory`, alias `gaia-eval memory`) and the
suite they build.

`--tier pr` replays six scenarios through the memory system with the scripted extractor and
hashed word vectors (deterministic, seconds; gate it against `builtin:memory/pr`); `--tier
full` lets a model extract, consolidate and answer with the real embedder (never gated;
`--repeats N` reports the spread). `--list` prints the scenarios and their probe counts.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from gaia_eval.core.options import RUN, Option, Options, SuiteCommand, listed, tier

if TYPE_CHECKING:
    from gaia_eval.memory.scenario import Scenario
    from gaia_eval.memory.suite import MemorySuite

OPTIONS = Options.of(
    tier(("pr", "full"), "pr", "pr: scripted and gated (default); full: a model, not gated"),
    Option(
        "--scenarios",
        "run only these scenarios (ids from --list, or paths to scenario .yaml files)",
        metavar="A,B",
    ),
    Option("--list", "print the scenarios and their probe counts", kind="switch", record=False),
    Option(
        "--system",
        "the memory system under test (default: the reference system); the factory takes no "
        "arguments and returns a fresh object implementing the Memory protocol",
        metavar="MODULE:FACTORY",
    ),
    Option(
        "--model",
        "full: the model that extracts, consolidates and answers (default local)",
        metavar="SPEC",
    ),
    Option(
        "--embedder",
        "embedder spec (default: hash for pr, onnx:all-MiniLM-L6-v2-int8 for full)",
        metavar="SPEC",
    ),
    Option("--judge", "full: also grade each answer with this model", metavar="SPEC"),
    Option("--repeats", "full: run each scenario N times", int, default=1),
    RUN,
)


def build(args: argparse.Namespace) -> MemorySuite:
    """The suite `args` ask for; a `local` model's server is started now, so the header
    records what serves it and the report says it is a plumbing model."""
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.memory.suite import MemorySuite

    if args.suite == "full" and getattr(args, "gate", None):
        msg = "--gate: full is never gated (too noisy); gate the pr suite"
        raise InvalidInputError(msg)
    local = None
    if args.suite == "full" and not args.list:
        from gaia_eval.llm.local_server import local_server_for
        from gaia_eval.llm.spec import parse_model_spec

        specs = [parse_model_spec(args.model or "local", "--model")]
        if args.judge:
            specs.append(parse_model_spec(args.judge, "--judge"))
        local = local_server_for(*specs)
    return MemorySuite(
        args.suite,
        scenarios=listed(args.scenarios) or None,
        system=args.system,
        model=args.model,
        embedder=args.embedder,
        judge=args.judge,
        repeats=args.repeats,
        local_model=local,
    )


def main(args: argparse.Namespace) -> int:
    from gaia_eval.core.launch import run_suite

    suite = build(args)
    if args.list:
        ids = {n.rsplit("/", 1)[-1].removesuffix(".yaml") for n in listed(args.scenarios)}
        print("\n".join(_row(s) for s in suite.scenarios if not ids or s.id in ids))
        return 0
    return run_suite(suite, args)


def _row(sc: Scenario) -> str:
    kinds: dict[str, int] = {}
    for p in sc.probes:
        kinds[p.spec.kind] = kinds.get(p.spec.kind, 0) + 1
    checks = sum(
        len(p.spec.must_show) + len(p.spec.must_not_show) + len(p.spec.store_must)
        + len(p.spec.store_must_not)
        for p in sc.probes
    )  # fmt: skip
    span = f"{sc.start:%Y-%m-%d}..{sc.end:%Y-%m-%d}"
    by_kind = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
    return (
        f"{sc.id:38} {span}  {len(sc.chats):3} chats {len(sc.probes):3} probes "
        f"{checks:3} checks  ({by_kind})"
    )


COMMAND = SuiteCommand(
    "memory",
    ("memory",),
    "Memory benchmark: months of chats replayed through a memory system, probed at times.",
    OPTIONS,
    main,
)
