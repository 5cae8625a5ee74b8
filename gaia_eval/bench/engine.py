"""The run loop's `--jobs`: wall time of 32 model-facing items against the ideal.

A loopback OpenAI-compatible server answers every request after a fixed delay (500 ms;
100 ms with --quick), and a suite of 32 items, each one chat request, goes through the real
run loop (`core.runloop.run`: item log, snapshots, report files, the shared limiter) at
`--jobs 1, 4, 8, 16`. The work is waiting, not computing, so the ideal wall time of the
item loop is ceil(32 / N) x delay; the row's ratio is measured / ideal (the goal: within
1.2 up to N = 16 on a 2-core machine). The measured figure is the whole `runloop.run`
call: the lock, the first results.json, the item log, the snapshots and the report files
count, as a person waits for them.

With the `local` extra and the pinned weights present, the embedded llama.cpp model (its
slots) answers 8 items of 64 output tokens at --jobs 1 and --jobs 4: aggregate output
tokens per second.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel

from gaia_eval.bench._model_server import delayed_model
from gaia_eval.bench.common import BenchRow
from gaia_eval.core.results import Envelope
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite

if TYPE_CHECKING:
    from gaia_eval.llm.openai_compat import OpenAIChat

TITLE = "engine: --jobs N against a 500 ms model (ideal ceil(32/N) x delay)"
ITEMS = 32
JOBS = (1, 4, 8, 16)


class _Answer(BaseModel):
    text: str
    output_tokens: int


class _Summary(BaseModel):
    n: int
    output_tokens: int


class ChatItems(Suite):
    """One chat request per item against `base_url` (the bench's model-facing suite)."""

    name: ClassVar[str] = "bench-engine"
    title: ClassVar[str] = "Engine bench: one chat request per item"
    item_model = _Answer
    concurrent_items: ClassVar[bool] = True

    def __init__(self, base_url: str, model: str, n: int, max_tokens: int | None = None):
        self.base_url, self.model, self.n, self.max_tokens = base_url, model, n, max_tokens
        self._client: OpenAIChat | None = None

    def setup(self, ctx: RunContext, items: Sequence[Item]) -> None:
        from gaia_eval.llm.openai_compat import OpenAIChat

        # One client for every item, as a suite's model client is: httpx's pool is
        # thread-safe, and a client per item would time its set-up, not the loop.
        self._client = OpenAIChat(self.base_url, self.model)

    def teardown(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def header_fields(self) -> HeaderFields:
        return HeaderFields(tier="bench", model=f"openai:{self.base_url}#{self.model}")

    def items(self) -> Sequence[Item]:
        return [Item(f"q{i:02d}", definition=i) for i in range(self.n)]

    def run_item(self, item: Item, ctx: RunContext) -> _Answer:
        assert self._client is not None
        prompt = f"Say one short sentence about the number {item.definition}."
        reply = self._client.chat([{"role": "user", "content": prompt}], max_tokens=self.max_tokens)
        return _Answer(text=reply.content, output_tokens=reply.output_tokens)

    @classmethod
    def summarise(cls, env: Envelope) -> _Summary:
        toks = sum(int((r.result or {}).get("output_tokens", 0)) for r in env.items)
        return _Summary(n=len(env.items), output_tokens=toks)


@contextmanager
def _private_lock() -> Iterator[None]:
    """The bench holds the machine-wide eval lock; the runs it makes lock a folder of
    their own."""
    before = os.environ.get("GAIA_EVAL_LOCK_DIR")
    with tempfile.TemporaryDirectory(prefix="gaia-eval-bench-lock-") as folder:
        os.environ["GAIA_EVAL_LOCK_DIR"] = folder
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("GAIA_EVAL_LOCK_DIR", None)
            else:
                os.environ["GAIA_EVAL_LOCK_DIR"] = before


def _run(suite: ChatItems, jobs: int, root: Path) -> tuple[float, Envelope]:
    from gaia_eval.core import runloop

    out = root / f"jobs{jobs}-{time.monotonic_ns()}"
    req = runloop.RunRequest(command="gaia-eval bench", argv=["bench"], out=out, jobs=jobs)
    t0 = time.perf_counter()
    outcome = runloop.run(suite, req)
    return time.perf_counter() - t0, outcome.envelope


def run(quick: bool) -> list[BenchRow]:
    delay = 0.1 if quick else 0.5
    rows: list[BenchRow] = []
    with _private_lock(), tempfile.TemporaryDirectory(prefix="gaia-eval-bench-engine-") as tmp:
        root = Path(tmp)
        with delayed_model(delay) as (url, _log):
            for jobs in JOBS:
                ideal = math.ceil(ITEMS / jobs) * delay
                wall, env = _run(ChatItems(url, "m", ITEMS), jobs, root)
                assert len(env.measured()) == ITEMS, env.header.errors
                rows.append(
                    BenchRow(
                        case=f"{ITEMS} items x {delay * 1000:.0f} ms, --jobs {jobs}",
                        impl="gaia_eval run loop",
                        median_s=wall,
                        note=f"ideal {ideal:.2f} s; measured/ideal {wall / ideal:.2f}",
                    )
                )
        rows += _local_rows(root, quick)
    return rows


def _local_rows(root: Path, quick: bool) -> list[BenchRow]:
    """The embedded local model with its slots: aggregate output tokens/s at --jobs 1 and
    4 (skipped with a note when the extra or the weights are missing)."""
    try:
        from gaia_eval.llm.local_server import shared_server

        server = shared_server()
    except Exception as err:  # the extra or the weights are missing: say so, skip
        return [
            BenchRow(
                case="local model, 8 items x 64 tokens",
                impl="gaia_eval run loop",
                median_s=float("nan"),
                note=f"skipped: {type(err).__name__}: {str(err)[:120]}",
            )
        ]
    n = 4 if quick else 8
    rows = []
    for jobs in (1, server.slots):
        suite = ChatItems(server.openai_base_url, server.model, n, max_tokens=64)
        wall, env = _run(suite, jobs, root)
        tokens = _Summary.model_validate(env.summary).output_tokens
        rows.append(
            BenchRow(
                case=f"local model ({server.slots} slots), {n} items x 64 tokens, --jobs {jobs}",
                impl="gaia_eval run loop",
                median_s=wall,
                note=f"{tokens / wall:.1f} output tokens/s aggregate ({tokens} tokens)",
            )
        )
    return rows
