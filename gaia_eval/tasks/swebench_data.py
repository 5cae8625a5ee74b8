"""SWE-bench Verified rows: read from the `datasets` package when it is installed, from the
Hugging Face datasets-server REST API otherwise, and cached as `<work root>/swebench/<id>.json`.

The cache is what the run, the judge and the grader read; it holds the gold patch, so the
fence hides it with the rest of the work root. Offline, a row that is not cached is an
InfrastructureError naming the instances, the cache folder and how to fill it.
"""

from __future__ import annotations

import json
import os
import random
import re
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

from gaia_eval.core import safe_args
from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.core.results_io import atomic_write_bytes, read_json

DATASET = "SWE-bench/SWE-bench_Verified"
SPLIT = "test"
API_ENV = "GAIA_EVAL_SWEBENCH_API"
SOURCE_ENV = "GAIA_EVAL_SWEBENCH_SOURCE"  # auto (default), datasets or http
DEFAULT_API = "https://datasets-server.huggingface.co"
PAGE = 100  # the API's largest page
HTTP_TIMEOUT_S = 60
PILOT = (
    "psf__requests-1921",
    "psf__requests-5414",
    "pallets__flask-5014",
    "pylint-dev__pylint-4970",
    "sphinx-doc__sphinx-8721",
)
REQUIRED = ("instance_id", "repo", "base_commit", "problem_statement", "patch")
IDS_FILE = "_instance_ids.json"
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*__[A-Za-z0-9._-]+-\d+")


def cache_dir(work_root: Path) -> Path:
    return work_root / "swebench"


def _cache_write(path: Path, data: object) -> None:
    # Dataset input, not a published artifact: written as it came (scrubbing would alter
    # the gold patch the grader and judge read), atomically so a killed run leaves no half.
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, json.dumps(data, indent=1, sort_keys=True).encode("utf-8"))


def check_id(value: object, where: str) -> str:
    """`owner__name-NUMBER`, the dataset's id shape (it names folders and items)."""
    if not isinstance(value, str) or not _ID.fullmatch(value):
        msg = f"{where}: {value!r} is not a SWE-bench instance id like psf__requests-1921"
        raise InvalidInputError(msg)
    return value


def validate_row(row: Any, where: str) -> dict[str, Any]:
    """A row with every field the suite uses, its git values checked."""
    from gaia_eval.agents.checkout import full_commit

    if not isinstance(row, dict):
        msg = f"{where}: a SWE-bench row must be an object"
        raise InvalidInputError(msg)
    for key in REQUIRED:
        if not isinstance(row.get(key), str) or not row[key]:
            msg = f"{where}: field {key!r} is missing or empty"
            raise InvalidInputError(msg)
    check_id(row["instance_id"], f"{where} field 'instance_id'")
    safe_args.repo(row["repo"], f"{where} field 'repo'")
    full_commit(row["base_commit"], f"{where} field 'base_commit'")
    return row


# ---- sources ------------------------------------------------------------------------------


def _api() -> str:
    return os.environ.get(API_ENV, "").strip().rstrip("/") or DEFAULT_API


def _get(path: str, params: dict[str, str | int]) -> Any:
    url = f"{_api()}{path}?{urllib.parse.urlencode(params)}"
    try:
        with urllib.request.urlopen(url, timeout=HTTP_TIMEOUT_S) as resp:
            return json.loads(resp.read().decode("utf-8"))
    except (urllib.error.URLError, OSError, ValueError) as err:
        msg = f"the SWE-bench dataset API ({url}) could not be read: {err}"
        raise InfrastructureError(msg) from err


def _http_rows(ids: list[str] | None) -> list[dict[str, Any]]:
    """Rows by id (the /filter endpoint), or every row (/rows, paged)."""
    base = {"dataset": DATASET, "config": "default", "split": SPLIT}
    out: list[dict[str, Any]] = []
    if ids is not None:
        for iid in ids:
            where = f"\"instance_id\"='{iid}'"  # iid matched the id shape: no quote in it
            data = _get("/filter", {**base, "where": where, "offset": 0, "length": 1})
            out += [r["row"] for r in data.get("rows", []) if isinstance(r, dict) and "row" in r]
        return out
    offset = 0
    while True:
        data = _get("/rows", {**base, "offset": offset, "length": PAGE})
        rows = [r["row"] for r in data.get("rows", []) if isinstance(r, dict) and "row" in r]
        out += rows
        offset += len(rows)
        if not rows or offset >= int(data.get("num_rows_total", 0)):
            return out


def _datasets_rows(ids: list[str] | None) -> list[dict[str, Any]]:
    from datasets import load_dataset  # type: ignore[import-not-found, unused-ignore]

    try:
        table = load_dataset(DATASET, split=SPLIT)
    except Exception as err:  # the package raises many kinds for a missing network
        msg = f"the datasets package could not load {DATASET}: {err}"
        raise InfrastructureError(msg) from err
    wanted = set(ids) if ids is not None else None
    return [dict(r) for r in table if wanted is None or r["instance_id"] in wanted]


def _source() -> str:
    import importlib.util

    chosen = os.environ.get(SOURCE_ENV, "auto").strip() or "auto"
    if chosen not in ("auto", "datasets", "http"):
        msg = f"{SOURCE_ENV}={chosen!r}: expected auto, datasets or http"
        raise InvalidInputError(msg)
    if chosen == "auto":
        return "datasets" if importlib.util.find_spec("datasets") is not None else "http"
    return chosen


def fetch_rows(ids: list[str] | None) -> list[dict[str, Any]]:
    return _datasets_rows(ids) if _source() == "datasets" else _http_rows(ids)


# ---- the cache ----------------------------------------------------------------------------


def _offline(missing: list[str], folder: Path, err: Exception) -> InfrastructureError:
    shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    msg = (
        f"SWE-bench rows not cached and the dataset is unreachable: {shown}. "
        f"Missing: {', '.join(f'{folder}/{m}.json' for m in missing[:3])}. Run once with "
        f"network access (the datasets package or {_api()}) to fill {folder}, or copy the "
        f"rows there. ({err})"
    )
    return InfrastructureError(msg)


def load_rows(ids: list[str], work_root: Path) -> list[dict[str, Any]]:
    """The rows of `ids` in that order, from the cache, fetching (and caching) the rest."""
    folder = cache_dir(work_root)
    for iid in ids:
        check_id(iid, "--instances")
    have = {i: folder / f"{i}.json" for i in ids if (folder / f"{i}.json").is_file()}
    missing = [i for i in ids if i not in have]
    fetched: dict[str, dict[str, Any]] = {}
    if missing:
        try:
            rows = fetch_rows(missing)
        except InfrastructureError as err:
            raise _offline(missing, folder, err) from err
        for raw in rows:
            row = validate_row(raw, f"{DATASET} row {raw.get('instance_id')!r}")
            fetched[row["instance_id"]] = row
            _cache_write(folder / f"{row['instance_id']}.json", row)
        absent = [i for i in missing if i not in fetched]
        if absent:
            msg = f"--instances: {absent} are not instances of {DATASET} ({SPLIT} split)"
            raise InvalidInputError(msg)
    out = []
    for iid in ids:
        row = fetched.get(iid) or validate_row(read_json(have[iid]), str(have[iid]))
        if row["instance_id"] != iid:
            msg = f"{have[iid]}: holds instance {row['instance_id']!r}, not {iid!r}"
            raise InvalidInputError(msg)
        out.append(row)
    return out


def all_ids(work_root: Path) -> list[str]:
    """Every instance id of the split (sorted), cached beside the rows."""
    folder = cache_dir(work_root)
    path = folder / IDS_FILE
    if path.is_file():
        data = read_json(path)
        if isinstance(data, list) and all(isinstance(i, str) for i in data):
            return [check_id(i, str(path)) for i in data]
    try:
        rows = fetch_rows(None)
    except InfrastructureError as err:
        raise _offline([IDS_FILE.removesuffix(".json")], folder, err) from err
    ids = []
    for raw in rows:
        row = validate_row(raw, f"{DATASET} row {raw.get('instance_id')!r}")
        ids.append(row["instance_id"])
        _cache_write(folder / f"{row['instance_id']}.json", row)
    ids.sort()
    _cache_write(path, ids)
    return ids


def sample(ids: list[str], n: int, seed: int) -> list[str]:
    """A seeded random `n` of `ids`: the same n and seed always pick the same instances."""
    if n < 1 or n > len(ids):
        msg = f"--sample {n}: must be between 1 and {len(ids)} (the instances available)"
        raise InvalidInputError(msg)
    return sorted(random.Random(seed).sample(sorted(ids), n))
