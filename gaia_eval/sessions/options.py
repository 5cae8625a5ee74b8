"""The session-replay suites' flags (`gaia-eval run sessions`, alias `gaia-eval sessions
run`; `run sessions-controls`, alias `sessions controls`) and the suites they build: an agent
re-answers your recorded Claude Code requests; a judge scores it against what Claude Code said.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gaia_eval.core.options import RUN, Option, Options, SuiteCommand, positive, positive_int

OPTIONS = Options.of(
    Options.of(
        Option("--claude-dir", "Claude Code projects folder (default ~/.claude/projects)", Path),
        Option("--project", "only the sessions of this project folder"),
        Option("--limit", "how many cases (default 10)", positive_int, default=10),
        Option("--focus", "only cases with this tag (code, repo, explain, search, docs)"),
        Option("--dataset-only", "write dataset.json and stop (no agent, judge)", kind="switch"),
        title="cases",
    ),
    Options.of(
        Option(
            "--harness",
            "tasks harness: builtin (over --model) | replay | command | claude-code",
            default="builtin",
        ),
        Option("--model", "agent model spec (builtin default: local), e.g. openai:<url>#<model>"),
        Option(
            "--replay",
            "replay harness: JSON of case id -> script, or 'reference' (answer = the reference)",
        ),
        Option("--command-template", "command harness: argv template with {prompt}"),
        Option("--judge-model", "judge model spec (anthropic:, openai:, claude-code:, local)"),
        Option("--repeats", "run and judge every case K times", positive_int, default=1),
        Option("--run-timeout", "wall-clock cap per case in s (900)", positive, default=900.0),
        title="agent under test and judge",
    ),
    RUN,
)


def _prepare(args: argparse.Namespace, mode: str) -> None:
    """The default run folder; a run folder must be private (sessions quote your code)."""
    from gaia_eval.core.rundir import default_run_dir
    from gaia_eval.sessions.privacy import check_private

    if args.out is None and args.resume is None:
        args.out = default_run_dir("sessions-controls" if mode == "controls" else "sessions")
    if args.out is not None:
        check_private(args.out)
    if args.resume is not None:
        check_private(args.resume, "--resume")


def main(args: argparse.Namespace) -> int:
    if args.dataset_only:
        _prepare(args, "run")
        return _dataset_only(args)
    return _replay(args)


def _harness(args: argparse.Namespace, dataset: object) -> tuple[object, str, str | None]:
    """(harness, system label, model label) of --harness."""
    import json

    from gaia_eval.agents.harnesses.registry import build_harness
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.sessions.models import SessionDataset

    assert isinstance(dataset, SessionDataset)
    name = args.harness
    if name == "builtin":
        # Default: the embedded local model (extra `local`), so a replay runs offline.
        spec = parse_model_spec(args.model or "local")
        return build_harness("builtin", model=spec), "builtin", spec.text
    if name == "replay":
        if not args.replay:
            msg = "--replay FILE|reference is required for --harness replay"
            raise InvalidInputError(msg)
        if args.replay == "reference":
            scripts = {c.id: [{"answer": c.reference}] for c in dataset.cases}
        else:
            path = Path(args.replay)
            try:
                scripts = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as err:
                msg = f"--replay {path}: not a readable JSON file of case id -> script ({err})"
                raise InvalidInputError(msg) from err
            if not isinstance(scripts, dict):
                msg = f"--replay {path}: expected an object mapping case id -> list of steps"
                raise InvalidInputError(msg)
        label = args.replay if args.replay == "reference" else Path(args.replay).name
        return build_harness("replay", scripts=scripts), f"replay:{label}", args.model
    if name == "claude-code":
        if not args.model:
            msg = "--model is required for --harness claude-code"
            raise InvalidInputError(msg)
        model = args.model.split(":", 1)[1] if ":" in args.model else args.model
        return build_harness("claude-code", model=model), name, args.model
    if name == "command":
        if not args.command_template:
            msg = "--command-template is required for --harness command"
            raise InvalidInputError(msg)
        model = args.model or "command"
        harness = build_harness("command", template=args.command_template, model=model)
        return harness, f"command:{args.command_template}", model
    return build_harness(name), name, args.model


def _replay(args: argparse.Namespace) -> int:
    _prepare(args, "run")
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.core.launch import run_suite
    from gaia_eval.core.results_io import read_json, write_json
    from gaia_eval.llm.local_server import local_server_for
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.sessions.dataset import build_dataset, default_claude_dir, discover
    from gaia_eval.sessions.models import SessionDataset
    from gaia_eval.sessions.suite import SessionsSuite

    if not args.judge_model:
        msg = "--judge-model is required to score replayed answers (or use --dataset-only)"
        raise InvalidInputError(msg)
    judge = parse_model_spec(args.judge_model, "--judge-model")
    recorded = args.resume / "dataset.json" if args.resume else None
    if recorded is not None and recorded.is_file():
        # A resumed run replays the cases it started with, not today's sessions.
        dataset = SessionDataset.model_validate(read_json(recorded))
    else:
        files = discover(args.claude_dir or default_claude_dir(), args.project)
        dataset = build_dataset(files, limit=args.limit, focus=args.focus)
    if not dataset.cases:
        msg = "sessions: no case was selected from the sessions found; see --dataset-only"
        raise InvalidInputError(msg)
    harness, system, model = _harness(args, dataset)
    agent = parse_model_spec(args.model or "local") if args.harness == "builtin" else None
    suite = SessionsSuite(
        dataset,
        harness=harness,
        system=system,
        model=model,
        judge=judge,
        repeats=args.repeats,
        run_timeout_s=args.run_timeout,
        # `local`: started now, so the header records what serves it and the report
        # says it is a plumbing model.
        local_model=local_server_for(agent, judge),
    )
    code = run_suite(suite, args)
    out = args.resume or args.out
    results = out / "results.json"
    data = read_json(results) if results.is_file() else None
    if isinstance(data, dict) and data.get("summary"):
        path = write_json(out / "scorecard.json", data["summary"])
        print(f"  scorecard: {path}")
    return code


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


def controls_main(args: argparse.Namespace) -> int:
    """`sessions controls`: the judge must order four planted answers."""
    import sys

    _prepare(args, "controls")
    from gaia_eval.core.errors import EXIT_GATE_FAILED, InvalidInputError
    from gaia_eval.core.launch import run_suite
    from gaia_eval.core.results_io import read_json
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.sessions.controls import SessionsControlsSuite

    if not args.judge_model:
        msg = "sessions controls: --judge-model is required (the judge being calibrated)"
        raise InvalidInputError(msg)
    suite = SessionsControlsSuite(parse_model_spec(args.judge_model, "--judge-model"))
    code = run_suite(suite, args)
    results = (args.resume or args.out) / "results.json"
    data = read_json(results) if results.is_file() else None
    summary = data.get("summary") if isinstance(data, dict) else None
    if code == 0 and isinstance(summary, dict) and not summary.get("ordered"):
        problems = "; ".join(summary.get("problems", []))
        print(f"sessions controls: the judge did not order the planted answers: {problems}",
              file=sys.stderr)  # fmt: skip
        return EXIT_GATE_FAILED
    return code


COMMANDS = (
    SuiteCommand(
        "sessions",
        ("sessions", "run"),
        "Score an agent against your recorded Claude Code sessions (replay + judge).",
        OPTIONS,
        main,
    ),
    SuiteCommand(
        "sessions-controls",
        ("sessions", "controls"),
        "Check that the session judge orders four planted answers.",
        OPTIONS,
        controls_main,
    ),
)
COMMAND, CONTROLS_COMMAND = COMMANDS
