"""`gaia-eval memory`: does memory let an agent grow with someone over months?

`--suite pr` replays six scenarios through the memory system with the scripted extractor
and hashed word vectors (deterministic, seconds; gate it against
`builtin:memory/pr`); `--suite full` lets a model extract, consolidate and answer with the
real embedder (never gated; `--repeats N` reports the spread). `--list` prints the
scenarios and their probe counts.
"""

from __future__ import annotations

import argparse

NAME = "memory"
HELP = "Memory benchmark: months of chats replayed through a memory system, probed at times."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from gaia_eval.cli._runflags import add_run_flags

    parser.add_argument("--suite", choices=("pr", "full"), default="pr", help="tier (default pr)")
    parser.add_argument(
        "--scenarios",
        metavar="A,B",
        help="run only these scenarios (ids from --list, or paths to scenario .yaml files)",
    )
    parser.add_argument(
        "--list", action="store_true", help="print the scenarios and their probe counts"
    )
    parser.add_argument(
        "--system",
        metavar="MODULE:FACTORY",
        help="the memory system under test (default: the reference system); the factory "
        "takes no arguments and returns a fresh object implementing the Memory protocol",
    )
    parser.add_argument(
        "--model",
        metavar="SPEC",
        help="full: the model that extracts, consolidates and answers (default local)",
    )
    parser.add_argument(
        "--embedder",
        metavar="SPEC",
        help="embedder spec (default: hash for pr, onnx:all-MiniLM-L6-v2-int8 for full)",
    )
    parser.add_argument(
        "--judge", metavar="SPEC", help="full: also grade each answer with this model"
    )
    parser.add_argument("--repeats", type=int, default=1, help="full: run each scenario N times")
    add_run_flags(parser)


def _list(scenarios: object) -> int:
    from gaia_eval.memory.scenario import Scenario

    assert isinstance(scenarios, list)
    rows = []
    for sc in scenarios:
        assert isinstance(sc, Scenario)
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
        rows.append(
            f"{sc.id:38} {span}  {len(sc.chats):3} chats {len(sc.probes):3} probes "
            f"{checks:3} checks  ({by_kind})"
        )
    print("\n".join(rows))
    return 0


def run(args: argparse.Namespace) -> int:
    from gaia_eval.cli._runflags import run_suite
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.memory.suite import MemorySuite

    if args.suite == "full" and getattr(args, "gate", None):
        msg = "--gate: full is never gated (too noisy); gate the pr suite"
        raise InvalidInputError(msg)
    names = [n.strip() for n in (args.scenarios or "").split(",") if n.strip()]
    local = None
    if args.suite == "full" and not args.list:
        from gaia_eval.cli._runflags import local_server_for
        from gaia_eval.llm.spec import parse_model_spec

        # `local`: started now, so the header records what serves it and the report
        # says it is a plumbing model.
        specs = [parse_model_spec(args.model or "local", "--model")]
        if args.judge:
            specs.append(parse_model_spec(args.judge, "--judge"))
        local = local_server_for(*specs)
    suite = MemorySuite(
        args.suite,
        scenarios=names or None,
        system=args.system,
        model=args.model,
        embedder=args.embedder,
        judge=args.judge,
        repeats=args.repeats,
        local_model=local,
    )
    if args.list:
        return _list(
            [
                s
                for s in suite.scenarios
                if not names or s.id in {n.rsplit("/", 1)[-1].removesuffix(".yaml") for n in names}
            ]
        )
    return run_suite(suite, args)
