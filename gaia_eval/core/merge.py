"""Join shard (or resumed) runs of one suite into one result that gates like a single run.

Refused (NotComparableError, exit 3, naming the run): runs of different suites or
settings, runs of different item sets, an item measured in two runs, a run holding an
item it was not asked (or, for a shard, one of another shard), a definition digest that is
not a sha256, and -- when the inputs are shards -- a missing or repeated shard, or shards
that together list other than the suite's number of items.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from gaia_eval.core import gate as gate_engine
from gaia_eval.core.errors import InvalidInputError, NotComparableError
from gaia_eval.core.report import render_html, render_markdown
from gaia_eval.core.results import Envelope, ItemRecord, load_envelope
from gaia_eval.core.results_io import write_json, write_text
from gaia_eval.core.runloop import (
    ITEM_LOG,
    RESULTS,
    Shard,
    append_record,
    check_out_dir,
    load_baseline,
)
from gaia_eval.core.suite import Suite, legacy_converters, suite_class


def _load(folder: Path) -> Envelope:
    path = folder / RESULTS if folder.is_dir() else folder
    return load_envelope(path, legacy=legacy_converters())


def merge_envelopes(runs: Sequence[tuple[str, Envelope]]) -> tuple[type[Suite], Envelope]:
    """The merged envelope of `runs` (label, envelope), checked as the module says."""
    if len(runs) < 2:
        msg = "merge needs at least two runs"
        raise InvalidInputError(msg)
    first_label, first = runs[0]
    cls = suite_class(first.header.suite)
    want = cls.comparable_fields(first.header)
    for label, env in runs[1:]:
        _check_comparable(first_label, want, label, cls.comparable_fields(env.header))
    _check_shards(runs)
    for label, env in runs:
        _check_run(cls, label, env)
    owner: dict[str, str] = {}
    items: list[ItemRecord] = []
    asked: list[str] = []
    for label, env in runs:
        asked += [i for i in env.header.item_ids if i not in asked]
        for rec in env.items:
            if rec.status == "infra_error":
                continue
            if rec.id in owner:
                msg = (
                    f"cannot merge: {cls.item_noun} {rec.id!r} was measured in both "
                    f"{owner[rec.id]} and {label}"
                )
                raise NotComparableError(msg)
            owner[rec.id] = label
            items.append(rec)
    # Unmeasured records stay visible unless another run measured the item.
    for _label, env in runs:
        items += [r for r in env.items if r.status == "infra_error" and r.id not in owner]
    head = first.header
    shards = sorted({e.header.shard for _, e in runs if e.header.shard})
    durations = [e.header.run.duration_s or 0.0 for _, e in runs]
    header = head.model_copy(
        update={
            "shard": None,
            "shards": shards,
            "item_ids": asked,
            "errors": [err for _, e in runs for err in e.header.errors],
            "interrupted": any(e.header.interrupted for _, e in runs),
            "run": head.run.model_copy(update={"duration_s": round(sum(durations), 3)}),
        }
    )
    if shards and not head.filtered and len(asked) != head.items_total:
        msg = (
            f"cannot merge: the shards list {len(asked)} {cls.item_noun}s in all, but the "
            f"suite defines {head.items_total} (header.items_total); a shard was edited"
        )
        raise NotComparableError(msg)
    measured = {r.id for r in items if r.status != "infra_error"}
    header.complete = all(e.header.complete for _, e in runs) and all(i in measured for i in asked)
    header.infra_errors = sum(1 for r in items if r.status == "infra_error")
    header.item_errors = sum(1 for r in items if r.status == "error")
    header.commits = sorted({r.commit for r in items if r.commit})
    # Each shard sets up what its items need (one indexes dataset A, another B): the merged
    # setup holds every run's facts, the first run's where two ran the same set-up.
    setup = {k: v for _, e in reversed(runs) for k, v in e.setup.items()}
    env = Envelope(header=header, items=items, setup=setup)
    env.summary = cls.summarise(env).model_dump(mode="json", by_alias=True)
    return cls, env


_SHA256 = re.compile(r"[0-9a-f]{64}")

# What a reader needs first: which suite and tier each run is. The item-definition digest
# differs whenever those do, so it is named last, and shortened.
_FIRST = ("suite", "tier")
_LAST = "definition_digest"


def _check_comparable(
    first_label: str, want: dict[str, object], label: str, got: dict[str, object]
) -> None:
    if any(want.get(k) != got.get(k) for k in _FIRST):
        msg = (
            f"cannot merge runs of different suites: {label} is a run of "
            f"{_suite_name(got)} and {first_label} of {_suite_name(want)}; "
            "merge only runs of one suite"
        )
        raise NotComparableError(msg)
    keys = [k for k in dict.fromkeys([*want, *got]) if k != _LAST] + [_LAST]
    for key in keys:
        if want.get(key) == got.get(key):
            continue
        if key == _LAST:
            msg = (
                f"cannot merge {label} with {first_label}: they ran different item "
                f"definitions (definition_digest {str(got.get(key))[:12]}... there, "
                f"{str(want.get(key))[:12]}... in {first_label}); merge only runs of one "
                "version of the suite"
            )
        else:
            msg = (
                f"cannot merge {label} with {first_label}: {key} is {got.get(key)!r} there "
                f"and {want.get(key)!r} in {first_label}; merge only runs of one setting"
            )
        raise NotComparableError(msg)


def _suite_name(fields: dict[str, object]) -> str:
    tier = fields.get("tier")
    return f"{fields.get('suite')} --suite {tier}" if tier else f"{fields.get('suite')}"


def _check_run(cls: type[Suite], label: str, env: Envelope) -> None:
    """A run's own record must hold together: a digest that is a digest, and only the
    items its header says it was asked (and, for a shard, only that shard's items)."""
    digest = env.header.definition_digest
    if not _SHA256.fullmatch(digest) or len(set(digest)) == 1:
        msg = (
            f"cannot merge {label}: field header.definition_digest is {digest[:80]!r}, not the "
            "sha256 of the item definitions a run writes; the file was edited or damaged"
        )
        raise NotComparableError(msg)
    asked = set(env.header.item_ids)
    shard = Shard.parse(env.header.shard) if env.header.shard else None
    for item_id in [*env.header.item_ids, *(r.id for r in env.items)]:
        if item_id not in asked:
            msg = (
                f"cannot merge {label}: it holds {cls.item_noun} {item_id!r}, which is not in "
                "its header.item_ids (the items the run was asked); the file was edited"
            )
            raise NotComparableError(msg)
        if shard is not None and not shard.holds(item_id):
            msg = (
                f"cannot merge {label}: shard {shard} lists {cls.item_noun} {item_id!r}, which "
                f"is not one of that shard's {cls.item_noun}s; the file was edited"
            )
            raise NotComparableError(msg)


def _check_shards(runs: Sequence[tuple[str, Envelope]]) -> None:
    shards = [(label, env.header.shard) for label, env in runs]
    if not any(s for _, s in shards):
        return
    counts = set()
    seen: dict[int, str] = {}
    for label, shard in shards:
        if shard is None:
            msg = f"cannot merge: {label} is not a shard but the other runs are"
            raise NotComparableError(msg)
        index, count = (int(x) for x in shard.split("/"))
        counts.add(count)
        if index in seen:
            msg = f"cannot merge: shard {shard} appears twice ({seen[index]} and {label})"
            raise NotComparableError(msg)
        seen[index] = label
    if len(counts) != 1:
        msg = f"cannot merge shards of different splits: {sorted(s for _, s in shards if s)}"
        raise NotComparableError(msg)
    (count,) = counts
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in seen]
    if missing:
        msg = f"cannot merge: shard(s) {', '.join(missing)} missing; run them and merge again"
        raise NotComparableError(msg)


def merge(
    folders: Sequence[Path],
    out: Path,
    *,
    baseline: Path | None = None,
    baseline_label: str | None = None,
    tolerance: float | None = None,
) -> tuple[Envelope, dict[str, Path], type[Suite]]:
    """Merge run folders into `out` (results.json, items.jsonl, report.md, report.html)."""
    check_out_dir(out, resuming=False)
    runs = [(str(f), _load(f)) for f in folders]
    cls, env = merge_envelopes(runs)
    if baseline is not None:
        label = baseline_label or str(baseline)
        env.verdict = gate_engine.compare(
            cls, load_baseline(baseline, label, cls), env, tolerance=tolerance, label=label
        )
    for rec in env.items:
        append_record(out / ITEM_LOG, rec)
    paths = {
        "results": write_json(out / RESULTS, env),
        "report": write_text(out / "report.md", render_markdown(cls, env)),
        "html": write_text(out / "report.html", render_html(cls, env)),
    }
    return env, paths, cls
