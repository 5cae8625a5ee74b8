"""Benchmark instances: SWE-bench rows from a JSONL file or the HF datasets-server API.

Rows are `instance_id`, `repo` (owner/name), `base_commit`, `problem_statement`, `patch`
and optionally `created_at`. Downloads are cached under the work root and pinned: the cache
records the sha256 of each page, and a later download that differs is refused. With
`offline=True` nothing touches the network and a missing cache is an error that says so.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia_eval.core import safe_args
from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.core.jsontext import refuse_surrogates
from gaia_eval.core.results_io import loads_json, not_utf8

REQUIRED = ("instance_id", "repo", "base_commit", "problem_statement", "patch")
DATASETS_SERVER = "https://datasets-server.huggingface.co"
PAGE_ROWS = 100


@dataclass(frozen=True)
class Instance:
    instance_id: str
    repo: str
    base_commit: str
    problem_statement: str
    patch: str
    created_at: str | None = None
    source: str = "file"


def from_row(row: Any, where: str, source: str) -> Instance:
    if not isinstance(row, dict):
        msg = f"{where}: expected a JSON object with {', '.join(REQUIRED)}"
        raise InvalidInputError(msg)
    for key in REQUIRED:
        if not isinstance(row.get(key), str) or not row[key]:
            msg = f"{where}: field `{key}` is missing or not a non-empty string"
            raise InvalidInputError(msg)
    # Both reach git arguments and paths: a downloaded row must not smuggle in an option.
    safe_args.repo(row["repo"], f"{where}: field `repo`")
    safe_args.commit(row["base_commit"], f"{where}: field `base_commit`")
    _check_patch(row["patch"], f"{where}: instance {row['instance_id']!r}: field `patch`")
    created = row.get("created_at")
    return Instance(
        instance_id=row["instance_id"],
        repo=row["repo"],
        base_commit=row["base_commit"],
        problem_statement=row["problem_statement"],
        patch=row["patch"],
        created_at=str(created) if created else None,
        source=source,
    )


def _check_patch(patch: str, where: str) -> None:
    """The patch names files, each a path inside the repository (they reach `git show`)."""
    from gaia_eval.code_retrieval.gold import parse_patch

    try:
        changes = parse_patch(patch)
    except InvalidInputError as err:
        msg = f"{where}: {err}"
        raise InvalidInputError(msg) from err
    for change in changes:
        safe_args.tree_path(change.path, where)


def load_jsonl(path: Path, source: str = "file") -> list[Instance]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise not_utf8(f"--instances-file {path}", err) from err
    except OSError as err:
        msg = f"--instances-file {path}: cannot read ({err})"
        raise InvalidInputError(msg) from err
    out: list[Instance] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        row = loads_json(line, f"{path}:{n}")
        refuse_surrogates(row, f"{path}:{n}", line)
        out.append(from_row(row, f"{path}:{n}", source))
    ids = [i.instance_id for i in out]
    if len(set(ids)) != len(ids):
        msg = f"{path}: duplicate instance_id values"
        raise InvalidInputError(msg)
    return out


def fetch_rows(
    dataset: str,
    split: str,
    cache_dir: Path,
    *,
    config: str = "default",
    offline: bool = False,
    base_url: str = DATASETS_SERVER,
    source: str = "swebench-verified",
) -> list[Instance]:
    """All rows of a dataset split, page by page, cached and pinned under `cache_dir`."""
    safe = f"{dataset}--{config}--{split}".replace("/", "__")
    folder = Path(cache_dir) / "instances" / safe
    pins_path = folder / "pins.json"
    pins: dict[str, str] = json.loads(pins_path.read_text()) if pins_path.exists() else {}
    rows: list[Any] = []
    offset = 0
    while True:
        page_path = folder / f"rows-{offset:06d}.json"
        if page_path.exists():
            raw = page_path.read_bytes()
        elif offline:
            msg = (
                f"offline: instances for {dataset} ({split}) are not cached at {folder}; run once "
                "with network access or pass --instances-file"
            )
            raise InfrastructureError(msg)
        else:
            raw = _download(base_url, dataset, config, split, offset)
        digest = hashlib.sha256(raw).hexdigest()
        pinned = pins.get(page_path.name)
        if pinned is not None and pinned != digest:
            msg = f"{page_path}: content changed since it was pinned (sha256 {pinned[:12]}...)"
            raise InfrastructureError(msg)
        folder.mkdir(parents=True, exist_ok=True)
        if not page_path.exists():
            page_path.write_bytes(raw)
        pins[page_path.name] = digest
        try:
            page = json.loads(raw)
            page_rows = [r["row"] for r in page["rows"]]
            total = int(page.get("num_rows_total", 0))
        except (ValueError, KeyError, TypeError) as err:
            msg = f"{page_path}: not a datasets-server rows page ({err})"
            raise InfrastructureError(msg) from err
        rows.extend(page_rows)
        offset += PAGE_ROWS
        if not page_rows or offset >= total:
            break
    pins_path.write_text(json.dumps(pins, indent=1, sort_keys=True))
    return [from_row(r, f"{dataset} row {i}", source) for i, r in enumerate(rows)]


def _download(base_url: str, dataset: str, config: str, split: str, offset: int) -> bytes:
    import httpx

    params: dict[str, str | int] = {
        "dataset": dataset,
        "config": config,
        "split": split,
        "offset": offset,
        "length": PAGE_ROWS,
    }
    try:
        resp = httpx.get(f"{base_url}/rows", params=params, timeout=60.0)
    except httpx.HTTPError as err:
        msg = f"datasets-server unreachable at {base_url} ({err}); use --instances-file offline"
        raise InfrastructureError(msg) from err
    if resp.status_code != 200:
        msg = f"datasets-server answered {resp.status_code} for {dataset} {split} offset {offset}"
        raise InfrastructureError(msg)
    return resp.content
