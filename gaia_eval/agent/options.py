"""`gaia-eval agent`: YAML scenarios; a driver model plays the user and judges every turn.

`--tier smoke|full|backlog` picks shipped scenarios (gaia_eval/agent/data/ci_tiers.json
says why each is where it is); your own load from ~/.gaia/eval/scenarios and
`--scenarios-dir DIR` (`--tier custom` runs only those). The agent under test is the
reference chat agent over `--model` or your own `--system module:factory`. `--compare
BASELINE CURRENT` diffs two finished runs. Every run also writes SCORECARD.md, the release
scorecard (`--release-card RUN` writes it for a finished run), which `--scorecard-gate
CANDIDATE` gates against a baseline card.

The flags of `gaia-eval run agent` (alias `gaia-eval agent`) and the suite they build.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gaia_eval.core.errors import EXIT_GATE_FAILED
from gaia_eval.core.options import (
    RUN,
    Option,
    Options,
    SuiteCommand,
    finite,
    listed,
    non_negative,
    positive_int,
)

if TYPE_CHECKING:
    from gaia_eval.agent.models import Scenario
    from gaia_eval.agent.scenarios import Loaded
    from gaia_eval.agent.suite import AgentSuite

# `agent --compare` keeps its documented exit codes (docs/agent.md): a regression is
# 2 there, where the engine's gate says 1; not comparable is 3 in both. The one alias.
COMPARE_EXIT_ALIAS = {EXIT_GATE_FAILED: 2}

OPTIONS = Options.of(
    Options.of(
        Option(
            "--tier",
            "shipped tier (default smoke; ci_tiers.json says why each scenario is where it "
            "is); custom: only your scenarios (~/.gaia/eval/scenarios, --scenarios-dir) not in "
            "ci_tiers.json; all: everything; verify runs nothing (see gaia-eval lane verify)",
            choices=("smoke", "full", "backlog", "verify", "custom", "all"),
            default="smoke",
            always=True,
        ),
        Option(
            "--scenarios-dir",
            "more scenario YAML files (recursive), beside ~/.gaia/eval/scenarios (always "
            "loaded; $GAIA_EVAL_USER_SCENARIOS moves it, empty turns it off)",
            Path,
        ),
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
            "reference agent: tools (the model calls query_documents, remember, recall, "
            "save_note), "
            "pipeline (retrieve first, then answer; for models without tool calls); auto = "
            "pipeline for local, tools otherwise",
            choices=("auto", "tools", "pipeline"),
            default="auto",
        ),
        Option("--embedder", "reference agent embedder (default hash)", default="hash"),
        Option("--max-tokens", "agent reply cap (256)", positive_int, default=256),
        Option(
            "--driver-model",
            "driver spec (default local); replay:FILE replays scripted persona turns and "
            "judge verdicts (docs/agent.md, a ReplayFile) with the agent still real",
            default="local",
        ),
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
    Options.of(
        Option(
            "--release-card",
            "write RUN/SCORECARD.md (the release scorecard) for a finished run and stop",
            Path,
            metavar="RUN",
            record=False,
        ),
        Option(
            "--ctx-size",
            "the agent model's context window in tokens, stamped in SCORECARD.md (default: "
            "the local model's slot, else not stamped)",
            positive_int,
            metavar="N",
        ),
        Option(
            "--scorecard-gate",
            "gate a release: a SCORECARD.md (or a run folder holding one) against "
            "--baseline-file or --baseline-ref: exit 0 passed, 1 failed, 2 invalid input, "
            "3 not comparable (another context size, tier, scenario set or judge)",
            Path,
            metavar="CANDIDATE",
            record=False,
        ),
        Option(
            "--baseline-file",
            "the previous release's SCORECARD.md",
            Path,
            metavar="FILE",
            record=False,
        ),
        Option(
            "--baseline-ref",
            "a git tag, branch or commit holding the previous SCORECARD.md at the "
            "candidate's path (absent there: first adoption, the bars only)",
            metavar="REF",
            record=False,
        ),
        Option(
            "--min-aggregate",
            "fail below this aggregate (judged pass rate, percent), first adoption too",
            finite,
            metavar="PCT",
            record=False,
        ),
        Option(
            "--min-urgent-recall",
            "fail below this judged pass rate (0-1) of the critical and high severity "
            "scenarios; a card without it fails",
            finite,
            metavar="R",
            record=False,
        ),
        Option(
            "--regression-k",
            "a regression is below baseline - K x stdev x 100 when the baseline records the "
            "aggregate's stdev over repeats, else below the baseline (default 1)",
            non_negative,
            default=1.0,
            metavar="K",
            record=False,
        ),
        Option(
            "--allow-regression",
            "a regression warns instead of failing",
            kind="switch",
            record=False,
        ),
        Option(
            "--allow-ctx-mismatch",
            "gate cards of different context sizes (a warning, not exit 3)",
            kind="switch",
            record=False,
        ),
        Option(
            "--require-ctx-match",
            "a candidate without a context size fails",
            kind="switch",
            record=False,
        ),
        title="release scorecard",
    ),
    RUN,
)

_GATE_ONLY = (
    "baseline_file",
    "baseline_ref",
    "min_aggregate",
    "min_urgent_recall",
    "allow_regression",
    "allow_ctx_mismatch",
    "require_ctx_match",
)


def _compare(args: argparse.Namespace) -> int:
    from gaia_eval.agent.compare import compare, render

    baseline, current = args.compare
    cmp = compare(baseline, current, require_complete=args.require_complete)
    print(render(cmp))
    return COMPARE_EXIT_ALIAS.get(cmp.exit_code, cmp.exit_code)


def _scorecard_gate(args: argparse.Namespace) -> int:
    from gaia_eval.agent.release_gate import GateOptions, run

    opts = GateOptions(
        min_aggregate=args.min_aggregate,
        min_urgent_recall=args.min_urgent_recall,
        regression_k=args.regression_k,
        allow_regression=args.allow_regression,
        allow_ctx_mismatch=args.allow_ctx_mismatch,
        require_ctx_match=args.require_ctx_match,
    )
    return run(
        args.scorecard_gate,
        opts,
        baseline_file=args.baseline_file,
        baseline_ref=args.baseline_ref,
    )


def _release_card(folder: Path, ctx_size: int | None) -> None:
    """SCORECARD.md for the run in `folder` (nothing for a folder without results)."""
    from gaia_eval.agent.release import write_card
    from gaia_eval.core.results import load_envelope

    if (folder / "results.json").is_file():
        write_card(folder, load_envelope(folder / "results.json", suite="agent"), ctx_size=ctx_size)


def build(args: argparse.Namespace) -> AgentSuite:
    """The configured AgentSuite the flags ask for."""
    from gaia_eval.agent.driver import ModelDriver
    from gaia_eval.agent.protocol import ChatAgent
    from gaia_eval.agent.replay import PREFIX as REPLAY
    from gaia_eval.agent.replay import ReplayDriver, replay_path
    from gaia_eval.agent.runner import AgentConfig
    from gaia_eval.agent.scenarios import load_all
    from gaia_eval.agent.suite import AgentSuite
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.llm.local_server import RECORD_KEY, local_server_for
    from gaia_eval.llm.pricing import parse_price
    from gaia_eval.llm.spec import parse_model_spec

    scenarios = load_all(args.scenarios_dir, allow_outside=args.allow_outside)
    driver: ModelDriver | ReplayDriver
    if args.driver_model.startswith(REPLAY):
        if args.price:
            msg = "--price prices a driver model; a replayed driver (replay:FILE) costs nothing"
            raise InvalidInputError(msg)
        driver = ReplayDriver(replay_path(args.driver_model.removeprefix(REPLAY)))
        driver.check(_needed(scenarios, args))
        driver_spec = None
    else:
        driver_spec = parse_model_spec(args.driver_model, "--driver-model")
    price = parse_price(args.price) if args.price else None
    if driver_spec is not None:
        driver = ModelDriver(driver_spec, price_override=price)
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
        driver=driver,
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


def _needed(scenarios: list[Loaded], args: argparse.Namespace) -> list[Scenario]:
    """The scenarios this run will send turns for (tier and filters applied; a scenario
    missing a document is skipped, so it needs no script)."""
    from gaia_eval.agent.scenarios import in_tier

    only, cats = set(listed(args.scenarios)), set(listed(args.category))
    return [
        s.scenario
        for s in scenarios
        if in_tier(s, args.tier)
        and not s.missing
        and (not only or s.scenario.id in only)
        and (not cats or s.scenario.category in cats)
    ]


def _list(args: argparse.Namespace) -> int:
    from gaia_eval.agent.scenarios import in_tier, load_all

    for s in load_all(args.scenarios_dir, allow_outside=args.allow_outside):
        if in_tier(s, args.tier):
            sc = s.scenario
            miss = " (missing document)" if s.missing else ""
            mine = f" {s.source}" if s.tier == "custom" else ""
            print(f"{sc.id:36} {sc.category:18} {len(sc.turns)} turn(s) [{s.tier}]{miss}{mine}")
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
    if args.scorecard_gate:
        return _scorecard_gate(args)
    given = [k for k in _GATE_ONLY if getattr(args, k)]
    if given:
        flag = "--" + given[0].replace("_", "-")
        msg = f"{flag} goes with --scorecard-gate CANDIDATE"
        raise InvalidInputError(msg)
    if args.release_card:
        if not (args.release_card / "results.json").is_file():
            msg = f"--release-card {args.release_card}: no results.json; give a run folder"
            raise InvalidInputError(msg)
        _release_card(args.release_card, args.ctx_size)
        print(f"  scorecard: {args.release_card / 'SCORECARD.md'}")
        return 0
    if args.tier == "verify":
        from gaia_eval.agent.scenarios import VERIFY_TIER

        raise InvalidInputError(VERIFY_TIER)
    if args.list:
        return _list(args)
    if args.out is None and args.resume is None:
        args.out = default_run_dir("agent")
    suite = build(args)
    try:
        return run_suite(suite, args)
    finally:
        _write_scorecard(args.resume or args.out)
        try:
            _release_card(args.resume or args.out, args.ctx_size)
        except (InvalidInputError, ValueError) as err:  # never masks the run's own exit
            print(f"gaia-eval: SCORECARD.md not written: {err}", file=sys.stderr)


COMMAND = SuiteCommand(
    "agent",
    ("agent",),
    "Agent scenarios: a driver model plays a persona turn by turn and judges each turn.",
    OPTIONS,
    main,
)
