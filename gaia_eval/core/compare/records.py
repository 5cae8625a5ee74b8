"""The flipped items' records beside a comparison, so compare.md and compare.html link each
flip to what both runs recorded for it.

Each flipped item's record (the item record of results.json, as that run wrote it) is
copied to `records/baseline/<name>.json` and `records/current/<name>.json` in the
comparison's folder: the links are relative and keep working for a shipped `builtin:`
baseline (no run folder) and when the folder is moved or attached to a review. The file
name is the id made safe for any file system plus a digest of the id (two ids that make
the same safe name still get two files). Each side also links its run's report.html
when the run folder has one.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from gaia_eval.core.compare.models import Comparison, ItemFlip, RunRef
from gaia_eval.core.results import Envelope
from gaia_eval.core.results_io import write_json

RECORDS = "records"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def record_name(item: str) -> str:
    """`<safe id>-<8 hex>.json` for a record id (the safe part at most 80 characters)."""
    safe = _UNSAFE.sub("_", item).strip("._")[:80] or "item"
    return f"{safe}-{hashlib.sha256(item.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}.json"


def _report(results: Path, out: Path) -> str | None:
    page = results.parent / "report.html"
    if results.name != "results.json" or not page.is_file():
        return None
    return Path(os.path.relpath(page.resolve(), out.resolve())).as_posix()


def write_records(
    cmp: Comparison,
    out: Path,
    *,
    baseline: tuple[Envelope, Path],
    current: tuple[Envelope, Path],
) -> Comparison:
    """Copy every flipped item's record of both runs under `out/records/` and return the
    comparison with the links (relative to `out`) filled in."""
    links: dict[str, dict[str, str]] = {}
    for side, (env, _) in (("baseline", baseline), ("current", current)):
        records = env.records()
        wanted = {f.baseline_record if side == "baseline" else f.current_record for f in cmp.flips}
        for rid in sorted(wanted):
            rec = records.get(rid)
            if rec is None:
                continue
            rel = f"{RECORDS}/{side}/{record_name(rid)}"
            write_json(out / rel, rec)
            links.setdefault(side, {})[rid] = rel
    flips = [
        ItemFlip.model_validate(
            f.model_dump()
            | {
                "baseline_link": links.get("baseline", {}).get(f.baseline_record),
                "current_link": links.get("current", {}).get(f.current_record),
            }
        )
        for f in cmp.flips
    ]

    def ref(r: RunRef, results: Path) -> RunRef:
        return r.model_copy(update={"report": _report(results, out)})

    return cmp.model_copy(
        update={
            "flips": flips,
            "baseline": ref(cmp.baseline, baseline[1]),
            "current": ref(cmp.current, current[1]),
        }
    )
