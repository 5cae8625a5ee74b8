"""A finished run changed after the run loop (a post-run step: `tasks judge DIR`, `tasks
swebench DIR`): its item results are changed in place under the eval lock, and its files
are rewritten in step, also when the step fails or is interrupted partway (what was
graded is kept)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from gaia_eval.core.results import Envelope
from gaia_eval.core.suite import Suite

M = TypeVar("M", bound=BaseModel)


@contextmanager
def rewriting(
    folder: Path, env: Envelope, cls: type[Suite], command: str, model: type[M]
) -> Iterator[dict[str, M]]:
    """The measured item results (as `model`, the suite's item model) of the run in
    `folder`, by item id, to change in place.

    On leaving (an error and a signal included): every result that changed is appended to
    items.jsonl and put in results.json, the summary and reports are rewritten, and the
    run's verdict is dropped (it gated the results before the change). Header changes the
    caller makes to `env` meanwhile are written too. `command` names the lock's holder."""
    from gaia_eval.core.lock import eval_lock
    from gaia_eval.core.runloop import (
        ITEM_LOG,
        append_record,
        read_item_log,
        unwind_on_signals,
        write_outputs,
    )

    # The item log may hold a newer record than results.json (a step interrupted before
    # its results.json was rewritten): start from the newest of each.
    logged = {r.id: r for r in read_item_log(folder / ITEM_LOG)}
    records = {r.id: logged.get(r.id, r) for r in env.items}
    results = {
        i: model.model_validate(r.result)
        for i, r in records.items()
        if r.status == "ok" and r.result is not None
    }
    before = {i: r.model_dump(mode="json", by_alias=True) for i, r in results.items()}
    with eval_lock(command), unwind_on_signals():
        try:
            yield results
        finally:
            for i, res in results.items():
                data = res.model_dump(mode="json", by_alias=True)
                if data != before[i]:
                    records[i] = records[i].model_copy(update={"result": data})
                    append_record(folder / ITEM_LOG, records[i])
            env.items = list(records.values())
            env.verdict = None
            env.summary = cls.summarise(env).model_dump(mode="json", by_alias=True)
            write_outputs(cls, folder, env)
