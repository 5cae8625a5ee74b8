"""Run a suite: the only module of the tasks benchmark that does I/O. It does not print.

Per task: a fresh toybox copy with its setup, a baseline snapshot, the harness in its own
process group under the wall-clock cap, then the checks. The scorecard is rewritten after
every task, so a crash or kill leaves every finished task on disk.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from gaia_eval.core.errors import GaiaEvalError, InfrastructureError
from gaia_eval.core.lock import eval_lock
from gaia_eval.core.progress import track
from gaia_eval.core.results_io import write_json, write_text
from gaia_eval.core.runmeta import RunClock
from gaia_eval.llm.pricing import price
from gaia_eval.tasks import ghstub
from gaia_eval.tasks.checks import after_answer, decide_mechanical, evaluate, verified, web_uses
from gaia_eval.tasks.definitions import TaskDef, data_dir
from gaia_eval.tasks.harnesses.base import Harness
from gaia_eval.tasks.isolation import agent_env, fenced_argv, run_capped
from gaia_eval.tasks.models import (
    AgentOutcome,
    Judgement,
    RunCost,
    Scorecard,
    TaskResult,
    Transcript,
)
from gaia_eval.tasks.report import summary_markdown
from gaia_eval.tasks.workspace import prepare, touched_files, tree_diff

if TYPE_CHECKING:
    from gaia_eval.tasks.judge import Attempt

DEFAULT_RUN_TIMEOUT_S = 1800.0
TAIL = 4000


@dataclass
class RunConfig:
    """Everything a run needs; recorded in the scorecard."""

    suite: str
    tasks: list[TaskDef]
    harness: Harness
    model: str
    out: Path
    run_timeout_s: float = DEFAULT_RUN_TIMEOUT_S
    work_root: Path = field(default_factory=lambda: Path(tempfile.gettempdir()) / "gaia-eval-tasks")
    repeats: int = 1
    full_access: bool = False
    fence: bool = False
    price_override: tuple[float, float] | None = None
    keep_workdirs: bool = False
    tests_timeout_s: float = 240.0
    judge: Callable[[Path], None] | None = None


def scorecard_path(run_dir: Path) -> Path:
    return run_dir / "scorecard.json"


def write_scorecard(run_dir: Path, card: Scorecard) -> None:
    write_json(scorecard_path(run_dir), card.model_dump(mode="json", by_alias=True))
    write_text(run_dir / "summary.md", summary_markdown(card))


def _revision() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except OSError:
        return None
    return out.stdout.strip() or None


def run_suite(cfg: RunConfig) -> list[Path]:
    """Run every repeat; returns the run folders (`out`, or `out/r1`, `out/r2`, ...)."""
    ensure_toolchain()
    dirs: list[Path] = []
    with eval_lock(f"gaia-eval tasks run --suite {cfg.suite}"):
        for r in range(1, cfg.repeats + 1):
            run_dir = cfg.out if cfg.repeats == 1 else cfg.out / f"r{r}"
            run_one(cfg, run_dir, r)
            dirs.append(run_dir)
            if cfg.judge is not None:
                cfg.judge(run_dir)
    return dirs


def ensure_toolchain() -> None:
    """The agent's toolchain is this interpreter; its checks and `run_pytest` need pytest."""
    import importlib.util
    import sys

    if importlib.util.find_spec("pytest") is None:
        msg = (
            f"{sys.executable} has no pytest, which every harness's toolchain and the checks "
            "need: pip install pytest (or pip install 'gaia-eval[tasks]')"
        )
        raise InfrastructureError(msg)


def run_one(cfg: RunConfig, run_dir: Path, repeat: int) -> Scorecard:
    run_dir.mkdir(parents=True, exist_ok=True)
    clock = RunClock(Path(__file__).parent)
    card = Scorecard(
        suite=cfg.suite,
        model=cfg.model,
        harness=cfg.harness.name,
        repeat=repeat,
        revision=_revision(),
        run_timeout_s=cfg.run_timeout_s,
        full_access=cfg.full_access,
        fenced=cfg.fence,
        task_ids=[t.id for t in cfg.tasks],
        meta=clock.meta,
    )
    try:
        for task in track(cfg.tasks, f"tasks {cfg.suite} r{repeat}"):
            try:
                result = run_task(cfg, task, run_dir / task.id)
            except GaiaEvalError as err:
                kind: Literal["unavailable", "failed"] = (
                    "unavailable" if isinstance(err, InfrastructureError) else "failed"
                )
                result = TaskResult(
                    id=task.id,
                    check=task.check,
                    harness=cfg.harness.name,
                    error=str(err),
                    error_kind=kind,
                )
            card.tasks.append(result)
            card.cost = run_cost(card.tasks)
            card.meta = clock.finish()
            write_scorecard(run_dir, card)
    finally:
        card.cost = run_cost(card.tasks)
        card.meta = clock.finish()
        write_scorecard(run_dir, card)
    return card


def run_cost(tasks: list[TaskResult]) -> RunCost:
    """Total agent cost; unknown if any task's is, an error-free single source otherwise."""
    sources = {t.cost_source for t in tasks if t.cost_source}
    if len(sources) > 1:
        # Mixed sources are different kinds of dollar; adding them would be meaningless.
        return RunCost(note=f"mixed cost sources {sorted(sources)}; no total")
    unknown = [t.id for t in tasks if t.cost_usd is None]
    if unknown or not tasks:
        return RunCost(
            source=next(iter(sources), None), note=f"unknown cost for {unknown}" if unknown else ""
        )
    return RunCost(
        total_usd=round(sum(t.cost_usd or 0.0 for t in tasks), 6), source=next(iter(sources), None)
    )


def task_env(root: Path, task: TaskDef) -> dict[str, str]:
    """The agent env plus the task's offline gh stand-in first on PATH."""
    env = agent_env()
    gh_bin = ghstub.install(root, task.gh)
    env["PATH"] = os.pathsep.join([str(gh_bin), env["PATH"]])
    env["GH_CONFIG_DIR"] = str(root / "gh" / "config")
    env["GH_PROMPT_DISABLED"] = "1"
    env["GH_NO_UPDATE_NOTIFIER"] = "1"
    return env


def run_task(cfg: RunConfig, task: TaskDef, task_dir: Path) -> TaskResult:
    task_dir.mkdir(parents=True, exist_ok=True)
    ws = prepare(task, cfg.work_root)
    try:
        if task.setup:
            write_text(task_dir / "setup.diff", tree_diff(ws.pristine, ws.baseline))
        prompt = f"You are working in {ws.project}.\n\n{task.prompt}"
        # The raw record (progress.jsonl, stdout, stderr) stays in the temporary workspace:
        # only its scrubbed transcript reaches the results folder.
        agent_dir = ws.root / "agent"
        agent_dir.mkdir(exist_ok=True)
        plan = cfg.harness.launch(task.id, prompt, ws.project, agent_dir, task.max_steps)
        env = task_env(ws.root, task)
        stdout, stderr = agent_dir / "stdout.txt", agent_dir / "stderr.txt"
        argv = plan.argv
        if cfg.fence:
            # The answer keys (task definitions, reference attempts), the results, every
            # other task's workdir and this task's baseline are invisible to the agent.
            argv = fenced_argv(
                argv,
                hide=[data_dir(), cfg.out.resolve(), cfg.work_root.resolve()],
                expose=[ws.root],
                rehide=[ws.baseline],
            )
        try:
            done = run_capped(
                argv,
                cwd=ws.project,
                env=env,
                timeout_s=cfg.run_timeout_s,
                stdout=stdout,
                stderr=stderr,
                stdin=plan.stdin,
            )
        except OSError as err:
            msg = f"harness {cfg.harness.name} could not start {plan.argv[0]!r}: {err}"
            raise InfrastructureError(msg) from err
        outcome = cfg.harness.collect(agent_dir, stdout, stderr)
        # Counted before the checks: probes call gh too, and those calls are not the agent's.
        gh_counts = ghstub.counts(ws.root)
        if done.timed_out and not outcome.error:
            outcome.error = f"cut off at the {cfg.run_timeout_s:g}s wall-clock cap"
            outcome.error_kind = "failed"
        elif done.returncode != 0 and not outcome.error:
            outcome.error = f"agent exited with status {done.returncode}: {_tail(stderr, 300)}"
            outcome.error_kind = "failed"
        result = score_task(
            cfg,
            task=task,
            project=ws.project,
            baseline=ws.baseline,
            outcome=outcome,
            env=env,
            wall=done.wall_seconds,
        )
        result.timed_out = done.timed_out
        result.gh_calls, result.gh_blocked_writes = gh_counts
        transcript = Transcript(
            task=task.id,
            prompt=prompt,
            outcome=outcome,
            stdout_tail=_tail(stdout, TAIL),
            stderr_tail=_tail(stderr, TAIL),
        )
        write_json(task_dir / "transcript.json", transcript.model_dump(mode="json", by_alias=True))
        write_text(task_dir / "workspace.diff", tree_diff(ws.baseline, ws.project))
        return result
    finally:
        if not cfg.keep_workdirs:
            ws.cleanup()


def score_task(
    cfg: RunConfig,
    *,
    task: TaskDef,
    project: Path,
    baseline: Path,
    outcome: AgentOutcome,
    env: dict[str, str],
    wall: float,
) -> TaskResult:
    cost = price(cfg.model, outcome.input_tokens, outcome.output_tokens, cfg.price_override)
    source: Literal["metered", "api_equivalent", "harness_counts"] | None = (
        "harness_counts" if outcome.steps else None
    )
    if outcome.reported_cost_usd is not None and cfg.harness.name == "claude-code":
        # Claude Code's own figure: the list price of its tokens, not money spent.
        cost, source = outcome.reported_cost_usd, "api_equivalent"
    result = TaskResult(
        id=task.id,
        check=task.check,
        harness=cfg.harness.name,
        wall_seconds=wall,
        steps=outcome.steps,
        tool_calls=len(outcome.tool_calls),
        input_tokens=outcome.input_tokens,
        output_tokens=outcome.output_tokens,
        cached_tokens=outcome.cached_tokens,
        verified=task.check == "mechanical" and verified(outcome.tool_calls),
        error=outcome.error,
        error_kind=outcome.error_kind,
        reported_cost_usd=outcome.reported_cost_usd,
        cost_usd=cost,
        cost_source=source,
        web_uses=web_uses(outcome.tool_calls) if task.closed_book else [],
    )
    if outcome.error_kind == "unavailable":
        result.passed = None
        result.why = "not measured: the model backend was unavailable"
        return result
    if task.check == "mechanical" and task.expect is not None:
        result.checks = evaluate(
            task.expect, project, baseline, env, tests_timeout_s=cfg.tests_timeout_s
        )
        result.passed, result.why = decide_mechanical(task, result.checks)
    else:
        result.passed = None
        result.why = "awaiting judge"
    result.after_answer = after_answer(outcome, task.prompt, touched_files(baseline, project))
    if result.after_answer:
        result.passed = False
        result.why = f"kept working after its answer: {result.after_answer[0]}"
    return result


def _tail(path: Path, n: int) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-n:].decode("utf-8", "replace")


def elapsed_since(t0: float) -> float:
    return round(time.monotonic() - t0, 3)


def env_setting(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


# ---- judging a finished run --------------------------------------------------------------


def load_scorecard(path: Path) -> Scorecard:
    """Read a scorecard.json (or the one in a run folder), refusing unknown versions."""
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.core.results_io import read_json
    from gaia_eval.tasks.models import SCORECARD_SCHEMA

    path = scorecard_path(path) if path.is_dir() else path
    data = read_json(path)
    if not isinstance(data, dict) or data.get("schema") != SCORECARD_SCHEMA:
        msg = f"{path}: not a tasks scorecard (field 'schema' must be {SCORECARD_SCHEMA})"
        raise InvalidInputError(msg)
    try:
        return Scorecard.model_validate(data)
    except ValueError as err:
        msg = f"{path}: invalid scorecard: {err}"
        raise InvalidInputError(msg) from err


def run_folders(paths: list[Path]) -> list[Path]:
    """Each given folder, or its r1, r2, ... repeats when it holds them."""
    out: list[Path] = []
    for p in paths:
        if scorecard_path(p).exists():
            out.append(p)
            continue
        reps = sorted((d for d in p.glob("r*") if scorecard_path(d).exists()), key=lambda d: d.name)
        if not reps:
            from gaia_eval.core.errors import InvalidInputError

            msg = f"{p}: no scorecard.json here or in r1, r2, ... (is it a tasks run folder?)"
            raise InvalidInputError(msg)
        out += reps
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def attempts_for_run(run_dir: Path, card: Scorecard, tasks: dict[str, TaskDef]) -> list[Attempt]:
    from gaia_eval.tasks.checks import checks_that_ran
    from gaia_eval.tasks.judge import Attempt

    out = []
    for res in card.tasks:
        if res.error_kind == "unavailable" or res.id not in tasks:
            continue
        tdir = run_dir / res.id
        tpath = tdir / "transcript.json"
        if not tpath.exists():
            continue
        tr = Transcript.model_validate_json(_read(tpath))
        out.append(
            Attempt(
                id=res.id,
                task=tasks[res.id],
                prompt=tasks[res.id].prompt,
                answer=tr.outcome.answer,
                workspace_diff=_read(tdir / "workspace.diff"),
                setup_diff=_read(tdir / "setup.diff"),
                tool_calls=tr.outcome.tool_calls,
                checks=checks_that_ran(tr.outcome.tool_calls),
            )
        )
    return out


def judge_run(
    run_dir: Path,
    judge_model: str,
    tasks: dict[str, TaskDef],
    *,
    attempts_allowed: int = 2,
    price_override: tuple[float, float] | None = None,
) -> Scorecard:
    """Grade a finished run in one batched call and write the grades into its scorecard."""
    from gaia_eval.llm.complete import complete
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.tasks.judge import judge_attempts, verdict

    spec = parse_model_spec(judge_model, "--judge-model")
    card = load_scorecard(run_dir)
    attempts = attempts_for_run(run_dir, card, tasks)
    grades: dict[str, Judgement] = {}
    outage: InfrastructureError | None = None
    try:
        grades = judge_attempts(
            attempts,
            lambda system, prompt: complete(spec, system, prompt, price_override=price_override),
            attempts_allowed=attempts_allowed,
        )
    except InfrastructureError as err:
        outage = err
        grades = {a.id: Judgement(error=f"judge unavailable: {err}") for a in attempts}
    for res in card.tasks:
        if res.id not in grades:
            continue
        res.judge = grades[res.id]
        if res.after_answer:
            continue  # the after-answer rule fails the task whatever the judge says
        passed, why = verdict(tasks[res.id], res.judge, res.passed)
        if tasks[res.id].check == "stated":
            res.passed, res.why = passed, why
    card.judge_model = spec.text
    costs = [g.cost_usd for g in grades.values()]
    sources = {g.cost_source for g in grades.values() if g.cost_source}
    card.judge_cost = RunCost(
        total_usd=round(sum(c or 0.0 for c in costs), 6) if costs and None not in costs else None,
        source=next(iter(sources), None),
    )
    write_scorecard(run_dir, card)
    if outage is not None:
        raise outage
    return card
