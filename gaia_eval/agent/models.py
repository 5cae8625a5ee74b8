"""The scenario format (YAML) and the result models of one scenario run."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gaia_eval.core.models import ResultModel, Variance

Status = Literal[
    "PASS",
    "FAIL",
    "BLOCKED",
    "INFRA_ERROR",
    "SETUP_ERROR",
    "TIMEOUT",
    "BUDGET_EXCEEDED",
    "ERRORED",
    "NOT_RUN",
    "SKIPPED_NO_DOCUMENT",
]
STATUSES: tuple[Status, ...] = get_args(Status)  # in the order above (reports list them so)
JUDGED: tuple[Status, ...] = ("PASS", "FAIL", "BLOCKED")
Blame = Literal["agent", "driver", "environment"]
DIMENSIONS: dict[str, float] = {
    "correctness": 0.25,
    "tool_selection": 0.20,
    "context_retention": 0.20,
    "completeness": 0.15,
    "efficiency": 0.10,
    "personality": 0.05,
    "error_recovery": 0.05,
}
"""The seven dimensions and their weights (they sum to 1)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


# ---- scenario YAML ---------------------------------------------------------------------------


class Document(_Strict):
    """A document the agent indexes before the first turn."""

    path: str
    """File path: relative to the scenario file, then to the RAG corpus folder
    (gaia_eval/retrieval/data), then to the agent suite's data folder."""
    corpus_doc: str | None = None
    """The document's id in the RAG pr corpus (repo_docs.json), when it is one of those."""


class Setup(_Strict):
    """What exists before the first turn."""

    index_documents: list[Document]
    """Documents to index; an empty list is allowed."""
    allow_outside: bool = Field(default=False, strict=True)
    """Whether a document may lie outside the folder it is resolved against (an absolute
    path, a `../` that climbs out, a symlink pointing out): refused unless this or the
    `--allow-outside` flag says so, as for RAG datasets."""


class GroundTruth(_Strict):
    """What a correct turn contains."""

    doc_id: str | None = None
    """The corpus document holding the fact."""
    fact_id: str | None = None
    """The fact's id (a repo_docs question id, e.g. repo-021)."""
    expected_answer: str | None = None
    """The answer; null means the correct answer is "it is not in the documents"."""
    expected_behavior: str | None = None
    """What the agent should do, when it is behaviour rather than a fact."""


VERIFY_TOKEN = "VERIFY VIA MCP:"
"""In a turn's success_criteria: the judge scores correctness from the agent's memory as read
after the turn (its `state()`), not from the reply; a failed or impossible verification
sets correctness to 0, as in the original GAIA memory scenarios."""
CHECK_KINDS = (
    "tool_called",
    "tool_not_called",
    "memory_has",
    "memory_lacks",
    "file_has",
    "file_absent",
)


class StateCheck(_Strict):
    """One check of the state a turn leaves (tau2-bench's state-based evaluation), verified
    by gaia_eval directly, beside the judge's scores. Exactly one kind per check:

        - tool_called: remember          # this turn called the tool ...
          arguments: {value: "8 am"}     # ... with these texts in these arguments
        - tool_not_called: remember      # no such call this turn (arguments narrow it)
        - memory_has: Bluebird           # a current memory's key or value contains it
        - memory_lacks: Okafor           # no current memory contains it
        - file_has: shopping.md          # the agent's workspace holds this file ...
          contains: eggs                 # ... containing this text
        - file_absent: draft.md
    Texts match case-insensitively; memory and files come from the agent's `state()`."""

    tool_called: str | None = None
    """A tool the agent must have called in this turn."""
    tool_not_called: str | None = None
    """A tool the agent must not have called in this turn (with `arguments`: not with
    those arguments)."""
    arguments: dict[str, str] = Field(default_factory=dict)
    """Argument name -> text its value must contain (`*`: any argument)."""
    memory_has: str | None = None
    """Text that a current memory (key or value) must contain after the turn."""
    memory_lacks: str | None = None
    """Text that no current memory may contain after the turn (forgotten and superseded
    memories are not current)."""
    file_has: str | None = None
    """A path, relative to the agent's workspace, that must exist after the turn."""
    contains: str | None = None
    """With file_has: text the file must contain."""
    file_absent: str | None = None
    """A path, relative to the agent's workspace, that must not exist after the turn."""

    @model_validator(mode="after")
    def _one_kind(self) -> StateCheck:
        kinds = [k for k in CHECK_KINDS if getattr(self, k) is not None]
        if len(kinds) != 1:
            got = ", ".join(kinds) or "none"
            msg = f"a check has exactly one of {', '.join(CHECK_KINDS)} (got {got}); split it"
            raise ValueError(msg)
        kind = kinds[0]
        if not str(getattr(self, kind)).strip():
            msg = f"{kind} is empty; name the tool, the text or the path"
            raise ValueError(msg)
        if self.arguments and kind not in ("tool_called", "tool_not_called"):
            msg = "arguments goes with tool_called or tool_not_called; remove it"
            raise ValueError(msg)
        if self.contains is not None and kind != "file_has":
            msg = "contains goes with file_has; remove it"
            raise ValueError(msg)
        if kind in ("file_has", "file_absent"):
            path = PurePosixPath(str(getattr(self, kind)))
            if path.is_absolute() or ".." in path.parts or "\\" in str(path):
                msg = f"{kind} is a path relative to the agent's workspace, without '..'"
                raise ValueError(msg)
        return self

    def kind(self) -> str:
        return next(k for k in CHECK_KINDS if getattr(self, k) is not None)

    def target(self) -> str:
        return str(getattr(self, self.kind()))


class Turn(_Strict):
    """One user turn."""

    turn: int
    """1..n, consecutive."""
    objective: str
    """What the simulated user wants from this turn (the driver writes the message from it
    and the persona when `user_message` is absent)."""
    user_message: str | None = None
    """The exact message to send; when present the driver does not write one."""
    ground_truth: GroundTruth | None = None
    """What a correct reply contains."""
    success_criteria: str | None = None
    """A plain-language bar the judge applies. With the token `VERIFY VIA MCP:` the judge
    scores correctness from the agent's memory as read after the turn, not from its prose
    (docs/agent.md)."""
    checks: list[StateCheck] = Field(default_factory=list)
    """State checks gaia_eval verifies itself after the turn, reported beside the judge's
    scores."""


class Scenario(_Strict):
    """One scenario file."""

    id: str
    """Stable id (the result's key)."""
    name: str = ""
    """Short title."""
    category: str
    """rag_quality, multi_turn, memory, honesty, prompt_injection, refusal, tool_selection..."""
    severity: str = "medium"
    """How bad a failure is: low, medium, high, critical."""
    description: str = ""
    """What the scenario checks and why."""
    persona: str
    """Who the simulated user is (casual_user, power_user, ... or your own)."""
    setup: Setup
    """Documents to index."""
    turns: list[Turn]
    """The user turns, in order."""
    expected_outcome: str = ""
    """What the whole conversation should achieve."""
    tags: list[str] = Field(default_factory=list)
    """Free tags (`verbatim` for single-tool probes)."""


# ---- replay driver file (`--driver-model replay:FILE`) ---------------------------------------


class ReplayVerdict(_Strict):
    """The judge's verdict on one turn, as a model driver's JSON reply would give it.
    gaia_eval rescores it exactly as a model's: each dimension clamped to [0, 10], the
    rules applied to the agent's real reply, the overall recomputed (the claimed
    `overall_score` is kept only as `judge_overall`)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, populate_by_name=True)

    scores: dict[str, float]
    """All seven dimensions (correctness, tool_selection, context_retention, completeness,
    efficiency, personality, error_recovery), 0-10; out of range is clamped."""
    overall_score: float | None = None
    """The judge's claimed overall; never trusted (recomputed from the scores)."""
    passed: bool = Field(alias="pass")
    """The judge's pass (gaia_eval decides pass from the recomputed scores)."""
    reasked: bool = False
    """The agent asked again for something the user already said."""
    blocked: bool = False
    """The agent's design cannot do this at all."""
    verified: bool | None = None
    """On a `VERIFY VIA MCP:` turn: whether the memory shows what the success criteria ask
    (anything but true sets correctness to 0)."""
    failure_category: str | None = None
    blame: Literal["agent", "driver", "environment", "none"] = "none"
    blame_evidence: str = ""
    reasoning: str = ""
    """Why this verdict (shown in the report)."""


class ReplayTurn(_Strict):
    """One scripted turn: the persona's message and the judge's verdict."""

    turn: int
    """The scenario turn it scripts (1..n, every turn once)."""
    user_message: str | None = None
    """The persona's message; absent = the scenario turn's own `user_message`."""
    verdict: ReplayVerdict
    """The verdict when the agent's reply matches `reply_matches` (always, without it)."""
    reply_matches: str | None = None
    """A Python regular expression (case-insensitive, `.` matches newlines) searched in the
    agent's real reply: the scripted verdict is for the expected answer, so a reply that
    does not match gets `otherwise` instead."""
    memory_matches: str | None = None
    """On a `VERIFY VIA MCP:` turn: a regular expression (as `reply_matches`) searched in
    the agent's memory as read after the turn; a memory that does not match gets
    `otherwise`, whatever the reply."""
    otherwise: ReplayVerdict | None = None
    """The verdict for a reply that does not match `reply_matches` or a memory that does
    not match `memory_matches` (required with either)."""


class ReplayScenario(_Strict):
    turns: list[ReplayTurn]


class ReplayFile(_Strict):
    """A replayed driver: per scenario id, the scripted persona turns and judge verdicts.
    The agent under test still runs for real; only the driver is replayed."""

    description: str = ""
    """What the verdicts script and for which agent."""
    scenarios: dict[str, ReplayScenario]
    """Scenario id -> its scripted turns. A scenario the run needs that is missing here is
    an input error before the run starts."""


# ---- results ---------------------------------------------------------------------------------


class Scores(ResultModel):
    """The seven dimensions, 0-10 each, after clamping and gaia_eval's rules."""

    correctness: float
    """Is the answer right (0 when a number is more than 5 % off, a name is wrong...)."""
    tool_selection: float
    """Did the agent use the right tools."""
    context_retention: float
    """Did it keep what earlier turns said (at most 4 when it re-asks)."""
    completeness: float
    """Did it answer all of the question."""
    efficiency: float
    """No wasted calls (0 for a loop of 3+ identical calls)."""
    personality: float
    """Tone fit for the persona."""
    error_recovery: float
    """Recovery from tool errors and misunderstandings."""


class ToolUse(ResultModel):
    """One tool call the agent made in a turn."""

    name: str
    """Tool name."""
    arguments: str = ""
    """Arguments as the agent wrote them."""
    output: str = ""
    """What the tool returned (cut to 600 characters)."""
    by: Literal["model", "pipeline"] = "model"
    """model: the model asked for it; pipeline: the agent ran it before asking the model."""


class CheckResult(ResultModel):
    """One state check, verified after its turn."""

    turn: int
    """The turn it checks."""
    kind: str
    """tool_called, tool_not_called, memory_has, memory_lacks, file_has or file_absent."""
    expect: str
    """What the check asks for, in words."""
    passed: bool | None
    """True: the state is as declared; False: it is not; None: the agent shows no such
    state (no `state()`, no memory or no workspace), so it could not be verified."""
    evidence: str = ""
    """What gaia_eval saw (the calls, the memories, the file), cut to 400 characters."""


class TurnPerformance(ResultModel):
    """The agent's own figures for one turn."""

    tokens_per_second: float | None = None
    """Output tokens per second of generation (after the first token)."""
    time_to_first_token: float | None = None
    """Seconds from sending to the first token of the last model call."""
    input_tokens: int = 0
    """Prompt tokens over the turn's model calls."""
    output_tokens: int = 0
    """Completion tokens over the turn's model calls."""
    flags: list[str] = Field(default_factory=list)
    """no_stats, low_throughput (< 5 tok/s), high_latency (TTFT > 5 s), token_explosion
    (input > 4,000 tokens); informational."""


class RecommendedFix(ResultModel):
    """Where the judge thinks a fix belongs."""

    target: str
    """architecture, prompt, tool_description or rag_pipeline."""
    file: str = ""
    """A file, when it names one."""
    description: str = ""
    """What to change."""


class TurnResult(ResultModel):
    """One judged turn."""

    turn: int
    """Turn number."""
    user_message: str
    """What the simulated user sent."""
    agent_response: str
    """What the agent answered (cut to 4,000 characters)."""
    agent_tools: list[ToolUse] = Field(default_factory=list)
    """Tool calls of the turn."""
    agent_model: str | None = None
    """The model the agent reports it ran for this turn (None: it did not say)."""
    scores: Scores | None = None
    """The dimensions after gaia_eval's rules; None when the judge gave no usable reply."""
    judge_overall: float | None = None
    """The judge's own overall figure (overwritten: gaia_eval recomputes it)."""
    overall_score: float | None = None
    """The weighted score gaia_eval computed from `scores` (0-10)."""
    passed: bool | None = Field(default=None, alias="pass")
    """Pass rule: correctness >= 4 and overall >= 6.0."""
    failure_category: str | None = None
    """The judge's short label for a failure."""
    reasoning: str = ""
    """The judge's reasoning."""
    blame: Blame | None = None
    """For a failed turn: whose fault (agent, driver = the simulator, environment)."""
    blame_evidence: str = ""
    """The judge's evidence for the blame."""
    blocked: bool = False
    """The judge says the agent's architecture cannot do this (BLOCKED)."""
    rules: list[str] = Field(default_factory=list)
    """gaia_eval's own rules that changed the judge's scores, one line each."""
    judge_error: str | None = None
    """Why the judge reply was unusable (never a score)."""
    recommended_fix: RecommendedFix | None = None
    """Where the judge thinks a fix belongs."""
    performance: TurnPerformance = Field(default_factory=TurnPerformance)
    """The agent's figures."""
    checks: list[CheckResult] = Field(default_factory=list)
    """The turn's state checks, verified by gaia_eval (beside the judge's scores)."""
    verified: bool | None = None
    """On a `VERIFY VIA MCP:` turn: True when the judge verified it from the memory; False
    when that failed or was impossible (correctness set to 0); None on other turns."""
    memory_shown: str | None = None
    """On a `VERIFY VIA MCP:` turn: the memory as the judge was shown it (cut to 1,500
    characters), or None when the agent had none to show."""
    seconds: float = 0.0
    """Wall seconds of the turn (agent and judge)."""


class DriverUsage(ResultModel):
    """What the driver (user simulator and judge in one) spent on a scenario."""

    input_tokens: int = 0
    """Prompt tokens."""
    output_tokens: int = 0
    """Completion tokens."""
    cache_read_tokens: int | None = None
    """Prompt tokens read from a cache (None: the backend does not say)."""
    cache_write_tokens: int | None = None
    """Prompt tokens written to a cache (None: the backend does not say)."""
    calls: int = 0
    """Driver requests."""
    cost_usd: float | None = None
    """Cost; None when unknown (never $0.00 for unknown)."""
    cost_source: str | None = None
    """Where the cost came from: harness_counts (rate card x tokens), api_equivalent, ..."""


class ScenarioResult(ResultModel):
    """One scenario run (one repeat)."""

    scenario_id: str
    """The scenario's id."""
    repeat: int = 1
    """Which repeat (1..K)."""
    category: str
    """The scenario's category."""
    status: Status
    """PASS, FAIL, BLOCKED, INFRA_ERROR, SETUP_ERROR, TIMEOUT, BUDGET_EXCEEDED, ERRORED,
    NOT_RUN or SKIPPED_NO_DOCUMENT."""
    overall_score: float | None = None
    """Mean of the turns' weighted scores (0-10); None when not judged."""
    turns: list[TurnResult] = Field(default_factory=list)
    """The turns that ran."""
    blame: Blame | None = None
    """For FAIL: whose fault the first failed turn was; driver-blamed failures are
    reported apart, never as agent failures."""
    reason: str = ""
    """Why the status, in one line (the missing document, the timeout, the model seen)."""
    root_cause: str = ""
    """The first failed turn's reasoning."""
    recommended_fix: RecommendedFix | None = None
    """Where a fix belongs, when the judge said."""
    performance_summary: TurnPerformance = Field(default_factory=TurnPerformance)
    """The turns' figures: mean tokens/s and TTFT over turns that have them, token sums,
    every flag raised."""
    driver_usage: DriverUsage | None = None
    """What the driver spent; None when nothing was recorded (killed, unmeasured)."""
    chunks_indexed: int | None = None
    """Chunks the agent indexed for the scenario's documents."""
    agent_models: list[str] = Field(default_factory=list)
    """Distinct models the agent reported running."""
    elapsed_s: float = 0.0
    """Wall seconds of the scenario."""
    state_passed: bool | None = None
    """The state checks' verdict beside the judge's status: True when every check passed,
    False when one failed, None when the scenario declares none or one could not be
    verified. It does not change `status` (the judge's)."""
    timeout_s: float = 0.0
    """The effective timeout it ran under."""


# ---- the scorecard ---------------------------------------------------------------------------


class Counts(ResultModel):
    """Scenario counts by outcome."""

    total_scenarios: int = 0
    """Scenario runs asked for (repeats count separately)."""
    passed: int = 0
    """PASS."""
    failed: int = 0
    """FAIL blamed on the agent (or the environment): the agent's failures."""
    failed_driver_blamed: int = 0
    """FAIL the judge blamed on the driver (the simulator): not an agent failure."""
    blocked: int = 0
    """BLOCKED: the agent's architecture cannot do it."""
    timeout: int = 0
    """TIMEOUT."""
    budget_exceeded: int = 0
    """BUDGET_EXCEEDED."""
    infra_error: int = 0
    """INFRA_ERROR plus SETUP_ERROR: unmeasured, never a score."""
    setup_error: int = 0
    """SETUP_ERROR alone (indexing gave 0 chunks)."""
    skipped: int = 0
    """SKIPPED_NO_DOCUMENT."""
    errored: int = 0
    """ERRORED (the agent crashed, or the judge gave no usable reply), and unknown statuses."""
    not_run: int = 0
    """NOT_RUN: never started (an outage stopped the run first)."""
    pass_rate: float | None = None
    """passed / total_scenarios."""
    judged_pass_rate: float | None = None
    """passed / (PASS + agent FAIL + BLOCKED); driver-blamed failures are left out."""
    avg_score: float | None = None
    """Mean score of judged scenarios, each FAIL capped at 5.99."""


class Performance(ResultModel):
    """The agent's figures over the run."""

    avg_tokens_per_second: float | None = None
    """Mean over scenarios that have it."""
    avg_time_to_first_token: float | None = None
    """Mean seconds over scenarios that have it."""
    total_input_tokens: int = 0
    """Agent prompt tokens."""
    total_output_tokens: int = 0
    """Agent completion tokens."""
    scenarios_with_data: int = 0
    """Scenarios with tokens/s or TTFT."""
    flags: dict[str, int] = Field(default_factory=dict)
    """How many scenarios raised each perf flag."""


class Cost(ResultModel):
    """What the driver spent (it plays the user and judges, so both jobs are in here)."""

    driver: DriverUsage = Field(default_factory=DriverUsage)
    """Summed over the scenarios that recorded usage."""
    scenarios_counted: int = 0
    """Scenarios whose usage is in the totals."""
    scenarios_missing: int = 0
    """Scenarios whose usage is not (not run, unmeasured, killed on timeout)."""
    cost_known: int = 0
    """Scenarios with a known cost."""
    estimated_total_usd: float | None = None
    """The driver's known cost; None when no scenario has one."""
    by_category: dict[str, DriverUsage] = Field(default_factory=dict)
    """Usage per category."""


class Repeat(ResultModel):
    """pass^k and flips of one scenario over K repeats."""

    scenario_id: str
    """The scenario."""
    n: int
    """Judged repeats (PASS, FAIL, BLOCKED)."""
    c: int
    """Passing repeats."""
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    """k -> C(c,k)/C(n,k), the chance that k draws without replacement all pass."""
    flip_rate: float | None = None
    """Share of consecutive repeat pairs whose pass state differs."""


class Row(ResultModel):
    """One scenario run in the scorecard."""

    id: str
    """Item id (`scenario` or `scenario@r` with repeats)."""
    scenario_id: str
    """The scenario."""
    category: str
    """Its category."""
    status: str
    """Its status."""
    overall_score: float | None = None
    """Its score (uncapped)."""
    blame: str | None = None
    """Blame of a FAIL."""
    reason: str = ""
    """Why the status."""
    commit: str | None = None
    """Commit it ran at."""
    ran_at: str | None = None
    """When it finished."""
    elapsed_s: float | None = None
    """Wall seconds."""


class Scorecard(ResultModel):
    """The agent suite's summary."""

    config: dict[str, Any] = Field(default_factory=dict)
    """agent_model (the agent's model), model (the driver's), tier, scenario_filter, repeats."""
    summary: Counts = Field(default_factory=Counts)
    """Counts and rates."""
    by_category: dict[str, Counts] = Field(default_factory=dict)
    """The same per category."""
    scenarios: list[Row] = Field(default_factory=list)
    """Every asked scenario run, NOT_RUN included."""
    performance: Performance = Field(default_factory=Performance)
    """The agent's figures."""
    cost: Cost = Field(default_factory=Cost)
    """The driver's spend."""
    repeats: list[Repeat] = Field(default_factory=list)
    """pass^k per scenario (with --repeats > 1)."""
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    """k -> mean pass^k over scenarios with n >= k judged repeats."""
    flipping_scenarios: int = 0
    """Scenarios whose repeats disagree."""
    warnings: list[str] = Field(default_factory=list)
    """Reasons to distrust the numbers (unknown statuses, unmeasured scenarios)."""


# ---- the release scorecard (SCORECARD.md's front matter) ---------------------------------


class CardAgent(ResultModel):
    """What was scored."""

    system: str | None = None
    """`reference` or your own `module:factory`."""
    model: str | None = None
    """The agent's model spec."""
    version: str | None = None
    """The commit the run measured (the card's version)."""


class CardAggregate(ResultModel):
    """The headline the release gate bars and compares."""

    metric: str = "judged_pass_rate"
    """What the value is: the judged pass rate (PASS / (PASS + agent FAIL + BLOCKED))."""
    value: float | None = None
    """In percent (0-100); None when nothing was judged."""
    n: int = 0
    """Judged scenario runs it counts (every repeat)."""
    interval: tuple[float, float] | None = None
    """Its 95% Wilson interval, in percent."""


class CardMetric(ResultModel):
    """A metric shown beside the aggregate."""

    name: str
    """urgent_recall: the judged pass rate of the critical and high severity scenarios."""
    value: float | None = None
    """A share (0-1); None when not measured."""
    n: int = 0
    """Judged scenario runs it counts."""


class CardResults(ResultModel):
    metrics: list[CardMetric] = Field(default_factory=list)
    """Secondary metrics (urgent_recall)."""


class CardEnvironment(ResultModel):
    ctx_size: int | None = None
    """The agent model's context window in tokens (the local model's slot, or
    `--ctx-size`); None: not stamped, so the gate cannot say the runs are comparable."""


class CardConfig(ResultModel):
    repeats: int = 1
    """`--repeats`."""
    acceptance_variance: dict[str, Variance] = Field(default_factory=dict)
    """Metric -> its spread over repeats (with 2 or more repeats)."""


class CardRecipe(ResultModel):
    environment: CardEnvironment = Field(default_factory=CardEnvironment)
    config: CardConfig = Field(default_factory=CardConfig)


class ReleaseCard(ResultModel):
    """The front matter of an agent's SCORECARD.md (`gaia-eval agent --release-card RUN`),
    which `gaia-eval agent --scorecard-gate` reads."""

    schema_version: Literal[1] = Field(default=1, alias="schema")
    """Format version."""
    suite: Literal["agent"] = "agent"
    agent: CardAgent = Field(default_factory=CardAgent)
    tier: str
    """The tier scored."""
    filtered: bool = False
    """A filtered run (`--scenarios`, `--category`) scored part of the tier."""
    judge: str | None = None
    """The driver that simulated and judged."""
    definition_digest: str
    """Digest of the scenario definitions scored."""
    aggregate: CardAggregate = Field(default_factory=CardAggregate)
    results: CardResults = Field(default_factory=CardResults)
    recipe: CardRecipe = Field(default_factory=CardRecipe)
    scenarios: dict[str, list[int]] = Field(default_factory=dict)
    """Scenario -> its judged repeats (1 pass, 0 not), for the paired test of two cards."""
    started: str | None = None
    """When the run started."""


RESULT_MODELS = (ScenarioResult, Scorecard, ReleaseCard)
INPUT_MODELS = (Scenario, ReplayFile)
