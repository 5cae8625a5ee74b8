"""`gaia-eval agent`: YAML scenarios; a driver model plays the user and judges every turn.

`--tier smoke|full|backlog` picks shipped scenarios (gaia_eval/agent/data/ci_tiers.json
says why each is where it is); `--scenarios-dir DIR` adds your own (`--tier custom` runs
only those). The agent under test is the reference chat agent over `--model` or your own
`--system module:factory`. `--compare BASELINE CURRENT` diffs two finished runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gaia_eval.core.errors import EXIT_GATE_FAILED
from gaia_eval.core.rundir import default_run_dir

NAME = "agent"
HELP = "Agent scenarios: a driver model plays a persona turn by turn and judges each turn."


def _ids(text: str | None) -> tuple[str, ...]:
    return tuple(x.strip() for x in (text or "").split(",") if x.strip())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from gaia_eval.cli._runflags import add_run_flags, non_negative, positive_int

    g = parser.add_argument_group("scenarios")
    g.add_argument(
        "--tier",
        choices=("smoke", "full", "backlog", "custom", "all"),
        default="smoke",
        help="shipped tier (default smoke); custom: only --scenarios-dir scenarios not in "
        "ci_tiers.json; all: everything",
    )
    g.add_argument("--scenarios-dir", type=Path, help="more scenario YAML files (recursive)")
    g.add_argument("--category", metavar="A,B", help="only these categories (a filtered run)")
    g.add_argument("--scenarios", metavar="A,B", help="only these scenario ids (a filtered run)")
    g.add_argument("--list", action="store_true", help="print the scenarios of the tier and stop")
    g.add_argument(
        "--allow-outside",
        action="store_true",
        help="index scenario documents outside the folder they resolve against (absolute "
        "paths, ../, symlinks out), as a scenario's setup.allow_outside does",
    )
    a = parser.add_argument_group("agent and driver")
    a.add_argument("--model", help="the reference agent's model spec (default local)")
    a.add_argument(
        "--system",
        metavar="MODULE:FACTORY",
        help="your own agent: a factory returning a ChatAgent (gaia_eval.agent.protocol)",
    )
    a.add_argument(
        "--agent-tools",
        choices=("auto", "tools", "pipeline"),
        default="auto",
        help="reference agent: tools (the model calls query_documents/remember/recall), "
        "pipeline (retrieve first, then answer; for models without tool calls); auto = "
        "pipeline for local, tools otherwise",
    )
    a.add_argument("--embedder", default="hash", help="reference agent embedder (default hash)")
    a.add_argument("--max-tokens", type=positive_int, default=256, help="agent reply cap (256)")
    a.add_argument("--driver-model", default="local", help="driver spec (default local)")
    a.add_argument("--price", help="driver price IN,OUT in USD per million tokens")
    a.add_argument(
        "--agent-model",
        metavar="M",
        help="discard (INFRA_ERROR) any scenario whose replies name another model",
    )
    r = parser.add_argument_group("limits and repeats")
    r.add_argument("--repeats", type=positive_int, default=1, help="run every scenario K times")
    r.add_argument(
        "--budget", type=non_negative, default=2.0, help="driver USD per scenario (2.00)"
    )
    r.add_argument(
        "--timeout",
        type=non_negative,
        default=900.0,
        help="base seconds per scenario; effective = min(cap, max(base, 240 + 90 x docs + "
        "200 x turns))",
    )
    r.add_argument("--timeout-cap", type=non_negative, default=7200.0, help="cap (7200 s)")
    c = parser.add_argument_group("compare two runs")
    c.add_argument(
        "--compare",
        nargs=2,
        metavar=("BASELINE", "CURRENT"),
        type=Path,
        help="diff two finished runs (folders or results.json): exit 0 no regression, "
        "2 regression, 3 not comparable (another agent or driver model)",
    )
    c.add_argument(
        "--require-complete",
        action="store_true",
        help="with --compare: a missing or unmeasured baseline scenario fails (exit 2)",
    )
    add_run_flags(parser)


def _local_info(*specs: object) -> object:
    from gaia_eval.llm.local_server import shared_server
    from gaia_eval.llm.spec import ModelSpec

    info = None
    for spec in specs:
        if isinstance(spec, ModelSpec) and spec.backend == "local":
            said = info is not None
            info = shared_server(spec.model).info
            if not said and info is not None:
                print(f"gaia-eval: {spec.text}: {info.note}", file=sys.stderr)
    return info


# `agent --compare` keeps its documented exit codes (docs/agent.md): a regression is
# 2 there, where the engine's gate says 1; not comparable is 3 in both. The one alias.
COMPARE_EXIT_ALIAS = {EXIT_GATE_FAILED: 2}


def _compare(args: argparse.Namespace) -> int:
    from gaia_eval.agent.compare import compare, render

    baseline, current = args.compare
    cmp = compare(baseline, current, require_complete=args.require_complete)
    print(render(cmp))
    return COMPARE_EXIT_ALIAS.get(cmp.exit_code, cmp.exit_code)


def build(args: argparse.Namespace) -> object:
    """The configured AgentSuite the flags ask for."""
    from gaia_eval.agent.driver import ModelDriver
    from gaia_eval.agent.protocol import ChatAgent
    from gaia_eval.agent.runner import AgentConfig
    from gaia_eval.agent.scenarios import load_all
    from gaia_eval.agent.suite import AgentSuite
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.llm.local_server import RECORD_KEY
    from gaia_eval.llm.pricing import parse_price
    from gaia_eval.llm.spec import parse_model_spec

    scenarios = load_all(args.scenarios_dir, allow_outside=args.allow_outside)
    driver_spec = parse_model_spec(args.driver_model, "--driver-model")
    price = parse_price(args.price) if args.price else None
    settings: dict[str, object] = {}
    if args.system and args.model:
        msg = "--system and --model: pick one (--model configures the reference agent)"
        raise InvalidInputError(msg)
    if args.system:
        from gaia_eval.core.plugins import load_system

        spec_text = args.system

        def make() -> ChatAgent:
            return load_system(spec_text, ChatAgent)  # type: ignore[type-abstract]

        probe = make()
        agent_model = probe.info().model
        probe.close()
        system, embedder, model_spec = args.system, None, None
    else:
        from gaia_eval.agent.reference import ReferenceAgent

        model_spec = parse_model_spec(args.model or "local", "--model")
        spec = model_spec

        def make() -> ChatAgent:
            return ReferenceAgent(
                spec, embedder=args.embedder, mode=args.agent_tools, max_tokens=args.max_tokens
            )

        probe = make()
        settings.update(probe.info().settings)
        probe.close()
        system, embedder, agent_model = "reference", args.embedder, model_spec.text
    info = _local_info(model_spec, driver_spec)
    record: dict[str, object] = {}
    if info is not None:
        settings[RECORD_KEY] = info.comparable()  # type: ignore[attr-defined]
        record[RECORD_KEY] = info.model_dump(mode="json")  # type: ignore[attr-defined]
    cfg = AgentConfig(
        tier=args.tier,
        scenarios=scenarios,
        make_agent=make,
        system=system,
        agent_model=agent_model,
        driver=ModelDriver(driver_spec, price_override=price),
        embedder=embedder,
        repeats=args.repeats,
        budget_usd=args.budget,
        timeout_s=args.timeout,
        timeout_cap_s=args.timeout_cap,
        pin_model=args.agent_model,
        categories=_ids(args.category),
        only=_ids(args.scenarios),
        settings=settings,
        setup_record=record,
    )
    return AgentSuite(cfg)


def _list(args: argparse.Namespace) -> int:
    from gaia_eval.agent.scenarios import in_tier, load_all

    for s in load_all(args.scenarios_dir, allow_outside=args.allow_outside):
        if in_tier(s, args.tier):
            sc = s.scenario
            miss = " (missing document)" if s.missing else ""
            print(f"{sc.id:36} {sc.category:18} {len(sc.turns)} turn(s) [{s.tier}]{miss}")
    return 0


def _write_scorecard(folder: Path) -> None:
    from gaia_eval.core.results_io import read_json, write_json

    path = folder / "results.json"
    if path.is_file():
        data = read_json(path)
        if isinstance(data, dict) and isinstance(data.get("summary"), dict):
            write_json(folder / "scorecard.json", data["summary"])


def run(args: argparse.Namespace) -> int:
    from gaia_eval.cli._runflags import run_suite
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.core.suite import Suite

    if args.compare:
        return _compare(args)
    if args.require_complete:
        msg = "--require-complete goes with --compare BASELINE CURRENT"
        raise InvalidInputError(msg)
    if args.list:
        return _list(args)
    if args.out is None and args.resume is None:
        args.out = default_run_dir("agent")
    suite = build(args)
    assert isinstance(suite, Suite)
    try:
        return run_suite(suite, args)
    finally:
        _write_scorecard(args.resume or args.out)
