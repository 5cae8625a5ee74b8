"""The memory benchmark as a suite on the engine: items, one item's run, summary.

An item is one scenario (in `full --repeats N`, one repeat of it: `<scenario>#<k>`). Not a
probe: a probe's truth depends on every chat before it on one shared database, so a probe
cannot run alone; a scenario can, on a fresh database. That makes `--resume` (a finished
scenario is kept, an unfinished one re-runs from its first chat) and `--shard` (scenarios
split across machines) meaningful, while the gate still compares check by check.

`pr`: the scripted extractor (each scenario's `extract` answers), hashed word vectors,
deterministic, seconds; gated against `baselines/memory/pr.json`. `full`: a model spec
extracts, consolidates and answers (default `local`), with the real embedder; never gated.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.reach import Endpoint
from gaia_eval.core.results import Envelope
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite
from gaia_eval.embed import Embedder
from gaia_eval.llm.local_server import RECORD_KEY, LocalServerInfo
from gaia_eval.memory.gate import GATE
from gaia_eval.memory.models import ScenarioResult
from gaia_eval.memory.report import REPORT, scenario_results
from gaia_eval.memory.scenario import DATA_DIR, Scenario, load_scenario, scenario_paths
from gaia_eval.memory.summary import MemorySummary, summarise
from gaia_eval.systems.memory.protocol import Memory, MemoryTools

Tier = Literal["pr", "full"]
REFERENCE = "reference"
PR_EMBEDDER = "hash"
FULL_EMBEDDER = "onnx:all-MiniLM-L6-v2-int8"
DEFAULT_MODEL = "local"


def system_factory(spec: str | None) -> Callable[[], Memory]:
    """The factory `--system` names (the reference system when None); its product is
    checked against the Memory protocol once, here, so a wrong plug-in is exit 2."""
    if spec is None or spec == REFERENCE:
        from gaia_eval.systems.memory import make

        return make
    from gaia_eval.core.plugins import load_system, resolve_factory

    # One instance, checked against the protocol (exit 2 naming what it lacks).
    load_system(spec, Memory)  # type: ignore[type-abstract]
    factory = resolve_factory(spec)
    return factory  # type: ignore[no-any-return]


LOCAL_SECONDS_PER_TURN = 38.0
"""Measured: `memory --suite full --model local`, 2,825 s over 74 chat turns (2026-12-01)."""


class MemorySuite(Suite):
    name = "memory"
    title = "Memory benchmark"
    item_model = ScenarioResult
    item_noun = "scenario"
    # Each scenario replays into its own SQLite file with its own tools, system and model
    # clients; the one embedder is Serialized.
    concurrent_items = True
    gate = GATE
    report = REPORT

    def default_jobs(self) -> int:
        """1 for the pr tier (scripted, CPU-bound); full: the model's fit."""
        if self.tier != "full":
            return 1
        from gaia_eval.llm.spec import default_jobs_for

        return default_jobs_for(self.model_spec, self.judge_spec)

    def __init__(
        self,
        tier: Tier = "pr",
        *,
        scenarios: Sequence[str] | None = None,
        system: str | None = None,
        model: str | None = None,
        embedder: str | None = None,
        judge: str | None = None,
        repeats: int = 1,
        data_dir: Path = DATA_DIR,
        local_model: LocalServerInfo | None = None,
    ) -> None:
        if tier not in ("pr", "full"):
            msg = f"--suite {tier!r}: choose pr or full"
            raise InvalidInputError(msg)
        if repeats < 1 or (tier == "pr" and repeats != 1):
            msg = f"--repeats {repeats}: pr is deterministic (1 repeat); full takes 1 or more"
            raise InvalidInputError(msg)
        if tier == "pr" and (model or judge):
            msg = "--model and --judge are for --suite full; pr uses the scripted extractor"
            raise InvalidInputError(msg)
        self.tier: Tier = tier
        self.system_spec = system or REFERENCE
        self.factory = system_factory(system)
        self.embedder_spec = embedder or (PR_EMBEDDER if tier == "pr" else FULL_EMBEDDER)
        self.model_spec = (model or DEFAULT_MODEL) if tier == "full" else None
        self.judge_spec = judge
        self.repeats = repeats
        self.data_dir = data_dir
        self.local_model = local_model
        self.asked = list(scenarios or [])
        self._embedder: Embedder | None = None
        self._scenarios = self._load()

    def preflight(self) -> list[str]:
        """full: what the model and judge specs need (SDK, API key, local weights) and the
        onnx extra for an onnx embedder; pr needs nothing beyond the base install."""
        from gaia_eval.core.extras import problem
        from gaia_eval.llm.preflight import model_needs
        from gaia_eval.llm.spec import parse_model_spec

        out: list[str] = []
        if self.embedder_spec.split(":", 1)[0] == "onnx":
            needed_by = f"--embedder {self.embedder_spec}"
            for module in ("onnxruntime", "tokenizers"):
                line = problem(module, "onnx", needed_by)
                out += [line] if line else []
        if self.model_spec is not None:
            out += model_needs(parse_model_spec(self.model_spec, "--model"), "--model")
        if self.judge_spec is not None:
            out += model_needs(parse_model_spec(self.judge_spec, "--judge"), "--judge")
        return out

    # ---- items ------------------------------------------------------------------------

    def _load(self) -> dict[str, tuple[Scenario, str]]:
        shipped = {p.stem: p for p in scenario_paths(self.data_dir)}
        paths = dict(shipped)
        for name in self.asked:
            if name in shipped:
                continue
            path = Path(name)
            if path.suffix in (".yaml", ".yml") and path.is_file():
                paths[path.stem] = path
            else:
                known = ", ".join(shipped)
                msg = f"--scenarios: no scenario {name!r}; known: {known} (or a .yaml path)"
                raise InvalidInputError(msg)
        out = {}
        for sid, path in sorted(paths.items()):
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            out[sid] = (load_scenario(path), digest)
        return out

    @property
    def scenarios(self) -> list[Scenario]:
        return [sc for sc, _ in self._scenarios.values()]

    def _item_id(self, sid: str, repeat: int) -> str:
        return sid if self.repeats == 1 else f"{sid}#{repeat}"

    def items(self) -> list[Item]:
        return [
            Item(
                self._item_id(sid, k),
                definition={"scenario": sid, "sha256": digest, "repeat": k},
                payload=(sc, k),
            )
            for sid, (sc, digest) in self._scenarios.items()
            for k in range(1, self.repeats + 1)
        ]

    def select(self, items: Sequence[Item]) -> Sequence[Item]:
        if not self.asked:
            return items
        wanted = {Path(n).stem if n.endswith((".yaml", ".yml")) else n for n in self.asked}
        return [i for i in items if i.payload[0].id in wanted]

    def item_seconds(self, item: Item) -> float | None:
        """full with the embedded local model: 38 s per chat turn, what the six scenarios
        took there (2,825 s over 74 turns on 2 shared cores, docs/memory.md); pr takes
        seconds in all, and another model's speed is not known here."""
        if self.tier != "full" or self.model_spec is None:
            return None
        from gaia_eval.llm.spec import parse_model_spec

        if parse_model_spec(self.model_spec, "--model").backend != "local":
            return None
        scenario, _ = item.payload
        return LOCAL_SECONDS_PER_TURN * sum(len(c.turns) for c in scenario.chats)

    def endpoints(self) -> list[Endpoint]:
        """full: the extraction model's and the judge's servers, and an `openai:`
        embedder's."""
        from gaia_eval.llm.preflight import model_endpoints
        from gaia_eval.llm.spec import parse_model_spec

        out: list[Endpoint] = []
        for flag, text in (
            ("--model", self.model_spec),
            ("--judge", self.judge_spec),
            (
                "--embedder",
                self.embedder_spec if self.embedder_spec.startswith("openai:") else None,
            ),
        ):
            if text is not None:
                out += model_endpoints(parse_model_spec(text, flag), flag)
        return out

    def header_fields(self) -> HeaderFields:
        return HeaderFields(
            tier=self.tier,
            system=self.system_spec,
            embedder=self.embedder_spec,
            model=self.model_spec,
            judge=self.judge_spec,
            settings={
                "extractor": "scripted" if self.tier == "pr" else "model",
                "repeats": self.repeats,
                **(
                    {RECORD_KEY: self.local_model.comparable()}
                    if self.local_model is not None
                    else {}
                ),
            },
        )

    # ---- running ----------------------------------------------------------------------

    def setup(self, ctx: RunContext, items: Sequence[Item]) -> None:
        from gaia_eval.embed import Serialized, describe, from_spec

        embedder = from_spec(self.embedder_spec)
        ctx.setup["embedder"] = describe(embedder)
        # Shared by the scenarios in flight (--jobs): one embed call at a time.
        self._embedder = Serialized(embedder)
        if self.local_model is not None:
            # The report prints its note (a 135M plumbing model) before any number.
            ctx.setup[RECORD_KEY] = self.local_model.model_dump(mode="json")
        info = self.factory().info()
        ctx.setup["system"] = {
            "name": info.name,
            "settings": {k: str(v) for k, v in info.settings.items()},
        }

    def _tools(self, scenario: Scenario) -> tuple[MemoryTools, Any, Any]:
        assert self._embedder is not None
        if self.tier == "pr":
            from gaia_eval.memory.extractors import ScriptedExtractor

            return MemoryTools(ScriptedExtractor(scenario), self._embedder), None, None
        from gaia_eval.llm.spec import parse_model_spec
        from gaia_eval.memory.model_backed import ModelAnswerer, ModelExtractor, ModelJudge

        assert self.model_spec is not None
        spec = parse_model_spec(self.model_spec)
        extractor = ModelExtractor(spec)
        answerer = ModelAnswerer(spec, extractor.tokens)
        judge = (
            ModelJudge(parse_model_spec(self.judge_spec, "--judge")) if self.judge_spec else None
        )
        return MemoryTools(extractor, self._embedder), answerer, judge

    def run_item(self, item: Item, ctx: RunContext) -> ScenarioResult:
        from gaia_eval.memory.replay import Replay

        scenario, repeat = item.payload
        folder = Path(ctx.setup["_temp"]) / "memory"
        folder.mkdir(parents=True, exist_ok=True)
        db = folder / f"{scenario.id}-{repeat}.db"
        for leftover in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
            leftover.unlink(missing_ok=True)  # a resumed scenario starts from its first chat
        tools, answerer, judge = self._tools(scenario)
        return Replay(
            scenario, self.factory, tools, db, repeat=repeat, answerer=answerer, judge=judge
        ).run()

    # ---- reading results ----------------------------------------------------------------

    @classmethod
    def summarise(cls, env: Envelope) -> MemorySummary:
        return summarise(scenario_results(env))
