"""`gaia-eval agent`: YAML scenarios; a driver model plays the user and judges every turn.

`--tier smoke|full|backlog` picks shipped scenarios (gaia_eval/agent/data/ci_tiers.json
says why each is where it is); `--scenarios-dir DIR` adds your own (`--tier custom` runs
only those). The agent under test is the reference chat agent over `--model` or your own
`--system module:factory`. `--compare BASELINE CURRENT` diffs two finished runs.

The flags of `gaia-eval run agent` (alias `gaia-eval agent`) and the suite they build.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from gaia_eval.core.errors import EXIT_GATE_FAILED
from gaia_eval.core.options import (
    RUN,
    Option,
    Options,
    SuiteCommand,
    listed,
    non_negative,
    positive_int,
)

if TYPE_CHECKING:
    from gaia_eval.agent.suite import AgentSuite

# `agent --compare` keeps its documented exit codes (docs/agent.md): a regression is
# 2 there, where the engine's gate says 1; not comparable is 3 in both. The one alias.
COMPARE_EXIT_ALIAS = {EXIT_GATE_FAILED: 2}

OPTIONS = Options.of(
    Options.of(
        Option(
            "--tier",
            "shipped tier (default smoke); custom: only --scenarios-dir scenarios not in "
            "ci_tiers.json; all: everything",
            choices=("smoke", "full", "backlog", "custom", "all"),
            default="smoke",
            always=True,
        ),
        Option("--scenarios-dir", "more scenario YAML files (recursive)", Path),
        Option("--category", "only these categories (a filtered run)", metavar="A,B"),
        Option("--scenarios", "only these scenario ids (a filtered run)", metavar="A,B"),
        Option("--list", "print the scenarios of the tier and stop", kind="switch", record=False),
        Option(
            "--allow-outside",
            "index scenario documents outside the folder they resolve against (absolute "
            "paths, ../, symlinks out), as a scenario's setup.allow_outside does",
            kind="switch",
        ),
        title="scenarios",
    ),
    Options.of(
        Option("--model", "the reference agent's model spec (default local)"),
        Option(
            "--system",
            "your own agent: a factory returning a ChatAgent (gaia_eval.agent.protocol)",
            metavar="MODULE:FACTORY",
        ),
        Option(
            "--agent-tools",
            "reference agent: tools (the model calls query_documents/remember/recall), "
            "pipeline (retrieve first, then answer; for models without tool calls); auto = "
            "pipeline for local, tools otherwise",
            choices=("auto", "tools", "pipeline"),
            default="auto",
        ),
        Option("--embedder", "reference agent embedder (default hash)", default="hash"),
        Option("--max-tokens", "agent reply cap (256)", positive_int, default=256),
        Option("--driver-model", "driver spec (default local)", default="local"),
        Option("--price", "driver price IN,OUT in USD per million tokens"),
        Option(
            "--agent-model",
            "discard (INFRA_ERROR) any scenario whose replies name another model",
            metavar="M",
        ),
        title="agent and driver",
    ),
    Options.of(
        Option("--repeats", "run every scenario K times", positive_int, default=1),
        Option("--budget", "driver USD per scenario (2.00)", non_negative, default=2.0),
        Option(
            "--timeout",
            "base seconds per scenario; effective = min(cap, max(base, 240 + 90 x docs + "
            "200 x turns))",
            non_negative,
            default=900.0,
        ),
        Option("--timeout-cap", "cap (7200 s)", non_negative, default=7200.0),
        title="limits and repeats",
    ),
    Options.of(
        Option(
            "--compare",
            "diff two finished runs (folders or results.json): exit 0 no regression, 2 "
            "regression, 3 not comparable (another agent or driver model)",
            Path,
            kind="many",
            metavar=("BASELINE", "CURRENT"),
            record=False,
        ),
        Option(
            "--require-complete",
            "with --compare: a missing or unmeasured baseline scenario fails (exit 2)",
            kind="switch",
            record=False,
        ),
        title="compare two runs",
    ),
    RUN,
)


def _compare(args: argparse.Namespace) -> int:
    from gaia_eval.agent.compare import compare, render

    baseline, current = args.compare
    cmp = compare(baseline, current, require_complete=args.require_complete)
    print(render(cmp))
    return COMPARE_EXIT_ALIAS.get(cmp.exit_code, cmp.exit_code)


def build(args: argparse.Namespace) -> AgentSuite:
    """The configured AgentSuite the flags ask for."""
    from gaia_eval.agent.driver import ModelDriver
    from gaia_eval.agent.protocol import ChatAgent
    from gaia_eval.agent.runner import AgentConfig
    from gaia_eval.agent.scenarios import load_all
    from gaia_eval.agent.suite import AgentSuite
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.llm.local_server import RECORD_KEY, local_server_for
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
    info = local_server_for(model_spec, driver_spec)
    record: dict[str, object] = {}
    if info is not None:
        settings[RECORD_KEY] = info.comparable()
        record[RECORD_KEY] = info.model_dump(mode="json")
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
        categories=tuple(listed(args.category)),
        only=tuple(listed(args.scenarios)),
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


def main(args: argparse.Namespace) -> int:
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.core.launch import run_suite
    from gaia_eval.core.rundir import default_run_dir

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
    try:
        return run_suite(suite, args)
    finally:
        _write_scorecard(args.resume or args.out)


COMMAND = SuiteCommand(
    "agent",
    ("agent",),
    "Agent scenarios: a driver model plays a persona turn by turn and judges each turn.",
    OPTIONS,
    main,
)
