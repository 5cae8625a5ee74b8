"""The session-replay suite on the engine: items are cases (x repeats).

Each case runs the agent under test (a tasks harness) once in a copy of the session's
repository, then the judge scores the answer against the recorded reference. A follow-up's
context is sent first as its own turn, asking for a brief acknowledgement (spec §7), to a
harness that holds conversations (`ConversationHarness`: builtin, replay); a one-shot CLI
harness (command, claude-code) gets it folded in before the question (the case's `query`).
Each result says which (`context_replay`).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gaia_eval.core.errors import InfrastructureError
from gaia_eval.core.reach import Endpoint
from gaia_eval.core.results import Envelope
from gaia_eval.core.results_io import write_json
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite
from gaia_eval.llm.local_server import RECORD_KEY, LocalServerInfo
from gaia_eval.llm.spec import ModelSpec
from gaia_eval.sessions.gate import GATE
from gaia_eval.sessions.models import SessionCase, SessionDataset
from gaia_eval.sessions.report import REPORT
from gaia_eval.sessions.results import (
    MATCH_SCORE,
    PASS_SCORE,
    CaseResult,
    Scorecard,
    Spread,
    TagStats,
)

RUN_TIMEOUT_S = 900.0
MAX_STEPS = 40


class SessionsSuite(Suite):
    name = "sessions"
    title = "Session replay"
    item_model = CaseResult
    item_noun = "case"
    # Each case has its own temp folder (workspace, agent record) and agent process; the
    # harness only plans launches: safe to run several at once.
    concurrent_items = True
    gate = GATE
    report = REPORT

    def __init__(
        self,
        dataset: SessionDataset,
        *,
        harness: Any,
        system: str,
        model: str | None,
        judge: ModelSpec,
        repeats: int = 1,
        run_timeout_s: float = RUN_TIMEOUT_S,
        settings: dict[str, Any] | None = None,
        local_model: LocalServerInfo | None = None,
    ) -> None:
        self.dataset = dataset
        self.harness = harness
        self.system = system
        self.model = model
        self.judge_spec = judge
        self.repeats = repeats
        self.run_timeout_s = run_timeout_s
        self.settings = settings or {}
        self.local_model = local_model

    def default_jobs(self) -> int:
        from gaia_eval.llm.spec import default_jobs_for

        return default_jobs_for(self.model, self.judge_spec.text)

    def preflight(self) -> list[str]:
        """What the judge spec needs (SDK, API key, local weights, the claude CLI) and, for
        the claude-code harness, the claude CLI."""
        import os
        import shutil

        from gaia_eval.llm.preflight import model_needs

        claude = os.environ.get("GAIA_EVAL_CLAUDE_BIN") or "claude"
        out = model_needs(self.judge_spec, "--judge-model", claude)
        if self.system == "claude-code" and shutil.which(claude) is None:
            out.append(
                f"the claude CLI ({claude!r}) for --harness claude-code: install Claude Code "
                "or set GAIA_EVAL_CLAUDE_BIN to its path"
            )
        return out

    def endpoints(self) -> list[Endpoint]:
        """The judge's server, and the builtin harness's model server."""
        from gaia_eval.llm.preflight import model_endpoints
        from gaia_eval.llm.spec import parse_model_spec

        out = model_endpoints(self.judge_spec, "--judge-model")
        if self.system == "builtin" and self.model:
            out += model_endpoints(parse_model_spec(self.model), "--model")
        return out

    def header_fields(self) -> HeaderFields:
        settings = {"limit": self.dataset.limit, "repeats": self.repeats, **self.settings}
        if self.local_model is not None:
            settings[RECORD_KEY] = self.local_model.comparable()
        return HeaderFields(
            tier=self.dataset.focus or "all",
            system=self.system,
            model=self.model,
            judge=self.judge_spec.text,
            settings=settings,
        )

    def items(self) -> list[Item]:
        out = []
        for case in self.dataset.cases:
            definition = case.model_dump(mode="json", exclude={"usage"})
            for r in range(1, self.repeats + 1):
                item_id = case.id if r == 1 else f"{case.id}#r{r}"
                out.append(Item(item_id, definition=definition, payload=(case, r)))
        return out

    def setup(self, ctx: RunContext, items: Sequence[Item]) -> None:
        path = ctx.out_dir / "dataset.json"
        if not path.exists():
            write_json(path, self.dataset)
        from gaia_eval.sessions.workspace import repository_root

        # Refuse a cwd that is not a repository before any case runs (it would be
        # replayed from a copy of, say, a home folder).
        for case in self.dataset.cases:
            repository_root(case.cwd, case=case.id, session=case.session)
        ctx.setup["sessions_scanned"] = self.dataset.sessions_scanned
        ctx.setup["turns_extracted"] = self.dataset.turns_extracted
        if self.local_model is not None:
            # The report prints its note (a 135M plumbing model) before any number.
            ctx.setup[RECORD_KEY] = self.local_model.model_dump(mode="json")

    def run_item(self, item: Item, ctx: RunContext) -> CaseResult:
        from gaia_eval.agents.isolation import agent_env, run_capped
        from gaia_eval.sessions.judge import judge
        from gaia_eval.sessions.workspace import prepare

        case, repeat = item.payload
        assert isinstance(case, SessionCase)
        base = ctx.item_temp(item.id)
        workdir, kind = prepare(
            case.cwd, case.git_branch, base / "work", case=case.id, session=case.session
        )
        agent_dir = base / "agent"
        agent_dir.mkdir(parents=True, exist_ok=True)
        plan, context_replay = self._launch(case, workdir, agent_dir)
        stdout, stderr = agent_dir / "stdout.txt", agent_dir / "stderr.txt"
        try:
            done = run_capped(
                plan.argv,
                cwd=workdir,
                env=agent_env(),
                timeout_s=self.run_timeout_s,
                stdout=stdout,
                stderr=stderr,
                stdin=plan.stdin,
            )
        except OSError as err:
            msg = f"harness {self.harness.name} could not start {plan.argv[0]!r}: {err}"
            raise InfrastructureError(msg) from err
        outcome = self.harness.collect(agent_dir, stdout, stderr)
        if outcome.error_kind == "unavailable":
            msg = f"the agent's model backend was unavailable: {outcome.error}"
            raise InfrastructureError(msg)
        error = outcome.error
        if done.timed_out and not error:
            error = f"cut off at the {self.run_timeout_s:g}s cap"
        elif done.returncode != 0 and not error:
            error = f"agent exited with status {done.returncode}"
        verdict = judge(self.judge_spec, case.prompt, case.reference, outcome.answer)
        return CaseResult(
            case=case.id,
            repeat=repeat,
            tags=case.tags,
            workspace=kind,
            no_repo=kind == "no_repo",
            context_replay=context_replay,
            answer=outcome.answer,
            agent_error=error,
            agent_input_tokens=outcome.input_tokens,
            agent_output_tokens=outcome.output_tokens,
            agent_seconds=round(done.wall_seconds, 3),
            score=verdict.score,
            verdict=verdict.verdict,
            rationale=verdict.rationale,
            judge_error=verdict.error,
            judge_attempts=verdict.attempts,
            reference_output_tokens=case.usage.output_tokens,
            reference_cost_usd=case.usage.cost_usd,
        )

    def _launch(self, case: SessionCase, workdir: Path, agent_dir: Path) -> tuple[Any, Any]:
        """The harness's launch plan, and how the context (if any) reaches the agent."""
        from gaia_eval.agents.harnesses.base import ConversationHarness
        from gaia_eval.sessions.dataset import context_turn

        if case.context is None:
            return self.harness.launch(case.id, case.prompt, workdir, agent_dir, MAX_STEPS), None
        if isinstance(self.harness, ConversationHarness):
            turns = [context_turn(case.context), case.prompt]
            plan = self.harness.launch_turns(case.id, turns, workdir, agent_dir, MAX_STEPS)
            return plan, "turn"
        return self.harness.launch(case.id, case.query, workdir, agent_dir, MAX_STEPS), "folded"

    # ---- reading results ----------------------------------------------------------------

    @classmethod
    def _results(cls, env: Envelope) -> list[CaseResult]:
        return [CaseResult.model_validate(r.result) for r in env.items if r.result is not None]

    @classmethod
    def summarise(cls, env: Envelope) -> Scorecard:
        results = cls._results(env)
        crashed = sum(1 for r in env.items if r.status == "error")
        scores = [r.score for r in results if r.score is not None]
        per_tag: dict[str, TagStats] = {}
        for tag in sorted({t for r in results for t in (r.tags or ["other"])}):
            rows = [r for r in results if tag in (r.tags or ["other"])]
            got = [r.score for r in rows if r.score is not None]
            per_tag[tag] = TagStats(
                cases=len(rows),
                scored=len(got),
                mean_score=round(statistics.fmean(got), 3) if got else None,
                passed=sum(1 for s in got if s >= PASS_SCORE),
            )
        by_case: dict[str, list[float]] = {}
        for r in results:
            if r.score is not None:
                by_case.setdefault(r.case, []).append(r.score)
        spread = {
            case: Spread(
                scores=got,
                min=min(got),
                max=max(got),
                stdev=round(statistics.pstdev(got), 3),
            )
            for case, got in by_case.items()
            if len(got) > 1
        }
        passed = sum(1 for s in scores if s >= PASS_SCORE)
        return Scorecard(
            cases=len(results) + crashed,
            scored=len(scores),
            errors=len(results) - len(scores) + crashed,
            mean_score=round(statistics.fmean(scores), 3) if scores else None,
            median_score=statistics.median(scores) if scores else None,
            passed=passed,
            pass_rate=round(100 * passed / len(scores)) if scores else None,
            matched_or_exceeded=sum(1 for s in scores if s >= MATCH_SCORE),
            dishonest=sum(1 for s in scores if s == 0),
            no_repo=sum(1 for r in results if r.no_repo),
            per_tag=per_tag,
            spread=spread,
        )
