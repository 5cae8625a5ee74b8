"""One memory-full scenario step against the real local model (the `local_model` fixture:
skipped without its packages, failed under GAIA_EVAL_REQUIRE_LOCAL_MODEL=1). It checks the
wiring with a real llama.cpp server, not the 135M model's quality: the model's extraction
reply parsed under its schema and its answer was checked.

A session-replay case against the real model is not here: one follow-up case (an
acknowledgement, an answer and a judge reply) took 35-42 s on 2 loaded cores, over the
30 s budget for one test; `gaia-eval sessions --model local --judge-model local` is run by
hand instead (docs/sessions.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

TINY = """\
persona: Test Person
start: 2025-03-03
chats:
  - at: 2025-03-03T10:00
    turns:
      - user: I moved to Lisbon from Porto last week.
probes:
  - {id: p1, at: 2025-03-04T12:00, kind: update, request: "Where do I live?",
     must_show: [Lisbon], answer_must: [Lisbon]}
  - {id: p2, at: 2025-03-04T12:01, kind: forget, request: x, must_not_show: [Porto]}
  - {id: p3, at: 2025-03-04T12:02, kind: provenance, request: x, must_not_show: [Porto]}
  - {id: p4, at: 2025-03-04T12:03, kind: temporal, request: x, must_show: [Lisbon]}
"""


def test_memory_full_step_with_the_local_model(local_model: Any, tmp_path: Path) -> None:
    """One chat turn extracted and one probe answered by the real model, through the
    suite's replay with the reference system (the other probes only make the scenario
    valid; each would cost another answer)."""
    from gaia_eval.embed import from_spec
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.memory.model_backed import ModelAnswerer, ModelExtractor
    from gaia_eval.memory.replay import Replay
    from gaia_eval.memory.scenario import load_scenario
    from gaia_eval.systems.memory import make
    from gaia_eval.systems.memory.protocol import MemoryTools

    path = tmp_path / "tiny.yaml"
    path.write_text(TINY, encoding="utf-8")
    full = load_scenario(path)
    scenario = full.model_copy(update={"probes": full.probes[:1]})
    extractor = ModelExtractor(parse_model_spec("local"))
    tools = MemoryTools(extractor, from_spec("hash"))
    answerer = ModelAnswerer(parse_model_spec("local"), extractor.tokens)
    result = Replay(scenario, make, tools, tmp_path / "m.db", answerer=answerer).run()
    assert extractor.tokens["input"] > 0 and extractor.tokens["output"] > 0
    assert result.extract_failures == 0  # JSON under the schema, parsed
    (probe,) = result.probes
    assert probe.answer  # the model answered with what memory showed
    assert {c.check for c in probe.checks} == {"must_show", "answer_must"}
