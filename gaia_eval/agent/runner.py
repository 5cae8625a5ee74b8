"""`AgentSuite`: scenario runs on the suite engine (one item = one scenario repeat)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gaia_eval.agent import blame as rules
from gaia_eval.agent.driver import ModelDriver
from gaia_eval.agent.models import (
    DriverUsage,
    RecommendedFix,
    ScenarioResult,
    ToolUse,
    TurnPerformance,
    TurnResult,
)
from gaia_eval.agent.protocol import AgentReply, ChatAgent
from gaia_eval.agent.scenarios import Loaded, effective_timeout
from gaia_eval.core.errors import GaiaEvalError, InfrastructureError

NO_CHUNKS_OK = ("adversarial",)
"""Categories where a document that indexes to 0 chunks is the point, not a setup error."""


class _Timeout(Exception):
    pass


@dataclass
class AgentConfig:
    """One configured agent run (the CLI builds it from flags)."""

    tier: str
    scenarios: list[Loaded]
    """Every loaded scenario (the tier picks from them)."""
    make_agent: Callable[[], ChatAgent]
    """A fresh agent (called again after a timeout abandons one)."""
    system: str
    """`reference` or the `--system` spec."""
    agent_model: str | None
    """The agent's model spec text."""
    driver: ModelDriver
    embedder: str | None = None
    repeats: int = 1
    budget_usd: float = 2.0
    timeout_s: float = 900.0
    timeout_cap_s: float = 7200.0
    pin_model: str | None = None
    """`--agent-model`: a scenario whose replies name another model is INFRA_ERROR."""
    categories: tuple[str, ...] = ()
    only: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)
    setup_record: dict[str, Any] = field(default_factory=dict)
    """Written into the envelope's setup (the local model's note)."""


class ScenarioRunner:
    """Runs scenarios against the configured agent, each within its effective timeout;
    a late agent is abandoned and closed at the end. With --jobs several scenarios run at
    once: each has an agent of its own."""

    def __init__(self, cfg: AgentConfig) -> None:
        self.cfg = cfg
        # One agent per scenario in flight (keyed by the scenario's thread; with --jobs
        # items run on threads of their own), handed back to `_idle` for the next one.
        self._agents: dict[int, ChatAgent] = {}
        self._idle: list[ChatAgent] = []
        self._abandoned: list[ChatAgent] = []
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._abandoned += [*self._agents.values(), *self._idle]
            self._agents.clear()
            self._idle.clear()
        for agent in self._abandoned:
            try:
                agent.close()
            except Exception:  # an abandoned agent's call may still hold what close frees
                continue
        self._abandoned.clear()

    def _agent_now(self) -> ChatAgent:
        """This scenario's agent: made (or taken from the idle ones) on first use."""
        me = threading.get_ident()
        with self._lock:
            agent = self._agents.get(me)
            if agent is None and self._idle:
                agent = self._agents[me] = self._idle.pop()
        if agent is None:
            agent = self.cfg.make_agent()
            with self._lock:
                self._agents[me] = agent
        return agent

    def _release_agent(self) -> None:
        """The scenario is done: its agent (if not abandoned) waits for the next one."""
        with self._lock:
            agent = self._agents.pop(threading.get_ident(), None)
            if agent is not None:
                self._idle.append(agent)

    def _abandon_agent(self) -> None:
        with self._lock:
            agent = self._agents.pop(threading.get_ident(), None)
            if agent is not None:  # abandoned: its call may still be running
                self._abandoned.append(agent)

    # ---- one scenario -----------------------------------------------------------------------

    def run(self, loaded: Loaded, repeat: int) -> ScenarioResult:
        sc = loaded.scenario
        docs = sc.setup.index_documents
        limit = effective_timeout(
            self.cfg.timeout_s, len(docs), len(sc.turns), self.cfg.timeout_cap_s
        )
        res = ScenarioResult(
            scenario_id=sc.id,
            repeat=repeat,
            category=sc.category,
            status="ERRORED",
            timeout_s=limit,
        )
        t0 = time.monotonic()
        try:
            self._run(loaded, res, t0 + limit)
        finally:
            res.elapsed_s = round(time.monotonic() - t0, 3)
            self._release_agent()
        return res

    def _bounded(self, fn: Callable[[], Any], deadline: float) -> Any:
        """Run `fn` with a wall-clock deadline; a late agent is abandoned (a fresh one is
        made for the next scenario) because a blocking call cannot be interrupted."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise _Timeout
        box: dict[str, Any] = {}

        def target() -> None:
            try:
                box["value"] = fn()
            except BaseException as err:  # handed to the caller's thread
                box["error"] = err

        t = threading.Thread(target=target, daemon=True)
        t.start()
        t.join(left)
        if t.is_alive():
            self._abandon_agent()
            raise _Timeout
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _run(self, loaded: Loaded, res: ScenarioResult, deadline: float) -> None:
        sc = loaded.scenario
        if loaded.missing:
            res.status = "SKIPPED_NO_DOCUMENT"
            res.reason = "missing document(s): " + ", ".join(loaded.missing)
            return
        usage = DriverUsage()
        try:
            agent = self._agent_now()
            paths = [p for p in loaded.documents if p is not None]
            chunks = self._bounded(lambda: agent.reset(paths), deadline)
        except _Timeout:
            res.status, res.reason = "TIMEOUT", "timed out while indexing the documents"
            return
        except InfrastructureError:
            raise
        except Exception as err:
            res.status, res.reason = "SETUP_ERROR", f"reset failed: {type(err).__name__}: {err}"
            return
        res.chunks_indexed = int(chunks)
        if paths and chunks == 0 and sc.category not in NO_CHUNKS_OK:
            res.status = "SETUP_ERROR"
            res.reason = "indexing the documents gave 0 chunks"
            return
        history: list[tuple[str, str]] = []
        try:
            for turn in sc.turns:
                tr = self._turn(loaded, turn, history, usage, deadline)
                res.turns.append(tr)
                if tr.judge_error is not None:
                    res.status, res.reason = "ERRORED", f"turn {turn.turn}: {tr.judge_error}"
                    res.driver_usage = usage
                    return
                if usage.cost_usd is not None and usage.cost_usd > self.cfg.budget_usd:
                    res.status = "BUDGET_EXCEEDED"
                    res.reason = (
                        f"the driver spent ${usage.cost_usd:.4f} after turn {turn.turn}, over the "
                        f"${self.cfg.budget_usd:.2f} budget"
                    )
                    res.driver_usage = usage
                    self._summarise_perf(res)
                    return
        except _Timeout:
            res.status = "TIMEOUT"
            res.reason = f"over the effective timeout of {res.timeout_s:.0f} s"
            self._summarise_perf(res)
            return  # killed: its driver usage is not counted (the totals say so)
        except _AgentCrash as err:
            res.status, res.reason = "ERRORED", f"the agent crashed: {err}"
            res.driver_usage = usage
            return
        except _DriverError as err:
            res.status, res.reason = "ERRORED", f"the driver could not write a message: {err}"
            res.driver_usage = usage
            return
        res.driver_usage = usage
        self._summarise_perf(res)
        self._decide(res)

    def _turn(
        self,
        loaded: Loaded,
        turn: Any,
        history: list[tuple[str, str]],
        usage: DriverUsage,
        deadline: float,
    ) -> TurnResult:
        sc = loaded.scenario
        t0 = time.monotonic()
        driver = self.cfg.driver

        def write() -> str:
            try:
                return driver.write_message(sc, turn, history, usage, deadline - time.monotonic())
            except InfrastructureError:
                raise
            except GaiaEvalError as err:  # a refused driver request: no message, no score
                raise _DriverError(str(err)) from err

        message: str = self._bounded(write, deadline)
        agent = self._agent_now()

        def send() -> AgentReply:
            try:
                return agent.send(message)
            except InfrastructureError:
                raise
            except Exception as err:
                raise _AgentCrash(f"{type(err).__name__}: {err}") from err

        reply: AgentReply = self._bounded(send, deadline)
        tools = [
            ToolUse(name=t.name, arguments=t.arguments, output=t.output[:600], by=t.by)  # type: ignore[arg-type]
            for t in reply.tool_calls
        ]
        perf = TurnPerformance(
            tokens_per_second=reply.tokens_per_second,
            time_to_first_token=reply.time_to_first_token,
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
        )
        perf.flags = rules.flags(perf)
        tr = TurnResult(
            turn=turn.turn,
            user_message=message,
            agent_response=reply.text[:4000],
            agent_tools=tools,
            agent_model=reply.model,
            performance=perf,
        )
        judged = self._bounded(
            lambda: driver.judge_turn(
                sc,
                turn,
                history,
                message,
                reply=reply.text,
                tools=[t.name for t in tools],
                usage=usage,
                timeout=deadline - time.monotonic(),
            ),
            deadline,
        )
        history.append((message, reply.text))
        tr.seconds = round(time.monotonic() - t0, 3)
        if judged.data is None:
            tr.judge_error = judged.error
            return tr
        data = judged.data
        scores, overall, passed, fired = rules.score_turn(data, reply.text, tools)
        tr.scores, tr.overall_score, tr.passed, tr.rules = scores, overall, passed, fired
        jo = data.get("overall_score")
        tr.judge_overall = float(jo) if isinstance(jo, int | float) else None
        tr.reasoning = str(data.get("reasoning", ""))[:1500]
        fc = data.get("failure_category")
        tr.failure_category = str(fc) if fc and not passed else None
        tr.blocked = bool(data.get("blocked")) and not passed
        if not passed:
            tr.blame, tr.blame_evidence = rules.blame_of(data)
        fix = data.get("recommended_fix")
        if isinstance(fix, dict) and fix.get("target"):
            tr.recommended_fix = RecommendedFix(
                target=str(fix["target"]),
                file=str(fix.get("file", "")),
                description=str(fix.get("description", "")),
            )
        return tr

    def _summarise_perf(self, res: ScenarioResult) -> None:
        tps = [t.performance.tokens_per_second for t in res.turns]
        ttft = [t.performance.time_to_first_token for t in res.turns]
        tps_v = [v for v in tps if v is not None]
        ttft_v = [v for v in ttft if v is not None]
        flags: list[str] = []
        for t in res.turns:
            flags += [f for f in t.performance.flags if f not in flags]
        res.performance_summary = TurnPerformance(
            tokens_per_second=round(sum(tps_v) / len(tps_v), 3) if tps_v else None,
            time_to_first_token=round(sum(ttft_v) / len(ttft_v), 4) if ttft_v else None,
            input_tokens=sum(t.performance.input_tokens for t in res.turns),
            output_tokens=sum(t.performance.output_tokens for t in res.turns),
            flags=flags,
        )
        res.agent_models = sorted({t.agent_model for t in res.turns if t.agent_model})

    def _decide(self, res: ScenarioResult) -> None:
        pin = self.cfg.pin_model
        if pin is not None:
            seen = [t.agent_model for t in res.turns]
            if any(m != pin for m in seen):
                shown = ", ".join(sorted({m or "(not reported)" for m in seen}))
                res.status = "INFRA_ERROR"
                res.reason = f"--agent-model {pin}: the agent ran {shown}; discarded"
                return
        scored = [t.overall_score for t in res.turns if t.overall_score is not None]
        res.overall_score = round(sum(scored) / len(scored), 3) if scored else None
        failed = [t for t in res.turns if not t.passed]
        if not failed:
            res.status, res.reason = "PASS", f"all {len(res.turns)} turns passed"
            return
        first = failed[0]
        res.root_cause = first.reasoning
        res.recommended_fix = first.recommended_fix
        if any(t.blocked for t in failed):
            res.status, res.reason = (
                "BLOCKED",
                f"turn {first.turn}: the judge says it cannot be done",
            )
            return
        res.status = "FAIL"
        res.blame = first.blame or "agent"
        res.reason = f"turn {first.turn} failed (blame: {res.blame})"


class _AgentCrash(Exception):
    pass


class _DriverError(Exception):
    pass
