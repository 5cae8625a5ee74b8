"""Load scenario YAML from the package and `--scenarios-dir`, validate it, resolve documents,
and read the CI tiers (`data/ci_tiers.json`: the tier of every shipped scenario and why)."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gaia_eval.agent.models import Document, Scenario
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.paths import outside

KNOWN_PERSONAS = (
    "casual_user",
    "power_user",
    "confused_user",
    "adversarial_user",
    "data_analyst",
    "home_user",
    "small_business_owner",
    "student",
    "creative_professional",
)
TIERS = ("smoke", "full", "backlog")
"""The tiers a scenario can be in. `full` runs the smoke scenarios too, and the backlog's
unless they carry `leaves_full`; `backlog` runs only its own; `custom` selects the user's
scenarios (`~/.gaia/eval/scenarios`, `--scenarios-dir`) that ci_tiers.json does not list;
`all` is everything. The `verify` tier of a final release runs no scenario (VERIFY_TIER)."""
VERIFY_TIER = (
    "--tier verify runs no scenario: a final release tag checks that a complete full sweep "
    "measured its commit or one of its release candidates; run `gaia-eval lane verify --tag "
    "vX.Y.Z --from DIR` instead, or pick --tier smoke, full or backlog"
)


USER_DIR_ENV = "GAIA_EVAL_USER_SCENARIOS"
"""Overrides the user's scenario folder (default ~/.gaia/eval/scenarios); empty: none."""


def user_dir() -> Path | None:
    """The user's own scenario folder, loaded on every run as the specification says:
    ~/.gaia/eval/scenarios, or $GAIA_EVAL_USER_SCENARIOS (empty turns it off); None
    when it is off or does not exist."""
    raw = os.environ.get(USER_DIR_ENV)
    if raw is not None:
        if not raw.strip():
            return None
        folder = Path(raw).expanduser()
    else:
        folder = Path.home() / ".gaia" / "eval" / "scenarios"
    if not folder.exists():
        return None
    if not folder.is_dir():
        where = f"${USER_DIR_ENV}" if raw is not None else "~/.gaia/eval/scenarios"
        msg = f"{folder} ({where}): not a folder; make it a folder of scenario YAML files"
        raise InvalidInputError(msg)
    return folder


def data_dir() -> Path:
    return Path(str(resources.files("gaia_eval.agent").joinpath("data")))


def corpus_dir() -> Path:
    """The RAG pr corpus root (repo_docs.json and corpus/)."""
    return Path(str(resources.files("gaia_eval.retrieval").joinpath("data")))


@dataclass(frozen=True)
class Loaded:
    """A validated scenario and where it came from."""

    scenario: Scenario
    source: Path
    documents: tuple[Path | None, ...]
    """Each document resolved to a file, or None when it is missing."""
    tier: str
    reason: str
    leaves_full: bool = False
    """A backlog scenario kept out of the full sweep (ci_tiers.json's `leaves_full`)."""

    @property
    def missing(self) -> list[str]:
        docs = self.scenario.setup.index_documents
        return [d.path for d, p in zip(docs, self.documents, strict=True) if p is None]

    def definition(self) -> dict[str, Any]:
        """What the definition digest covers: the scenario and its documents' content."""
        digests = [
            None if p is None else hashlib.sha256(p.read_bytes()).hexdigest()
            for p in self.documents
        ]
        return {"scenario": self.scenario.model_dump(mode="json"), "documents": digests}


def _field(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


_REQUIRED_FIX = {
    "id": "a unique `id: my_scenario`",
    "category": "`category: rag_quality` (or a category of your own)",
    "persona": "`persona: casual_user` (or a persona of your own)",
    "setup": "`setup: {index_documents: []}`",
    "turns": "`turns:` with at least one turn (turn, objective, ground_truth or success_criteria)",
}


def validate(data: object, source: Path) -> Scenario:
    """One scenario document -> Scenario; InvalidInputError naming the file and field."""
    if not isinstance(data, dict):
        msg = (
            f"{source}: a scenario is a mapping (id, category, persona, setup, turns); "
            "write one scenario per YAML document (docs/agent.md, Scenarios)"
        )
        raise InvalidInputError(msg)
    for key in ("id", "category", "persona", "setup", "turns"):
        if key not in data:
            msg = f"{source}: field {key!r} is required; add {_REQUIRED_FIX[key]}"
            raise InvalidInputError(msg)
    setup = data.get("setup")
    if not isinstance(setup, dict) or "index_documents" not in setup:
        msg = (
            f"{source}: field 'setup.index_documents' is required; add "
            "`index_documents: []` under setup (an empty list is allowed)"
        )
        raise InvalidInputError(msg)
    turns = data.get("turns")
    if isinstance(turns, list):
        for i, t in enumerate(turns):
            if isinstance(t, dict) and isinstance(t.get("success_criteria"), dict):
                msg = (
                    f"{source}: turns[{i}].success_criteria is a mapping; write it as one "
                    "plain string (put facts under ground_truth)"
                )
                raise InvalidInputError(msg)
    try:
        sc = Scenario.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        fix = (
            "remove it or fix its spelling"
            if first["type"] == "extra_forbidden"
            else "fix the value"
        )
        msg = (
            f"{source}: field {_field(first['loc'])!r}: {first['msg']}; {fix} (the format "
            "is in docs/agent.md, Scenarios)"
        )
        raise InvalidInputError(msg) from None
    if not sc.id.strip() or sc.id != sc.id.strip():
        msg = f"{source}: field 'id' is empty or padded; write it without spaces around it"
        raise InvalidInputError(msg)
    if not sc.persona.strip():
        msg = f"{source}: field 'persona' must be a non-empty string (e.g. casual_user)"
        raise InvalidInputError(msg)
    if not sc.turns:
        msg = f"{source}: field 'turns' must list at least one turn; add one (turn: 1)"
        raise InvalidInputError(msg)
    for i, turn in enumerate(sc.turns):
        if turn.turn != i + 1:
            msg = (
                f"{source}: turns[{i}].turn is {turn.turn}; turn numbers must be unique and "
                f"sequential from 1 (expected {i + 1})"
            )
            raise InvalidInputError(msg)
        gt = turn.ground_truth
        has_gt = gt is not None and any(v is not None for v in gt.model_dump().values())
        if gt is not None and not has_gt and "expected_answer" in _raw_gt(data, i):
            has_gt = True  # expected_answer: null -> "not in the documents" is a truth
        if not has_gt and not (turn.success_criteria or "").strip():
            msg = (
                f"{source}: turns[{i}] needs a non-empty ground_truth or a non-empty "
                "success_criteria string"
            )
            raise InvalidInputError(msg)
    for i, doc in enumerate(sc.setup.index_documents):
        if not doc.path.strip():
            msg = f"{source}: setup.index_documents[{i}].path is empty; name the file"
            raise InvalidInputError(msg)
    return sc


def _raw_gt(data: dict[str, Any], i: int) -> dict[str, Any]:
    t = data["turns"][i]
    gt = t.get("ground_truth") if isinstance(t, dict) else None
    return gt if isinstance(gt, dict) else {}


def resolve_document(
    doc: Document, source: Path, *, index: int = 0, allow_outside: bool = False
) -> Path | None:
    """The file a document names (first found under the scenario's folder, the RAG corpus,
    the suite's data), or None when it is missing. A file outside the folder it was found
    under (absolute path, `../`, symlink out) is refused unless `allow_outside`: its
    content would be indexed and sent to the model."""
    for root in (source.parent, corpus_dir(), data_dir()):
        p = root / doc.path
        if not p.is_file():
            continue
        if not allow_outside and outside(p, root):
            msg = (
                f"{source}: setup.index_documents[{index}].path: {os.path.realpath(p)} is "
                f"outside the folder it is resolved against ({root}); move it inside, or "
                "allow it with --allow-outside (or allow_outside: true under setup)"
            )
            raise InvalidInputError(msg)
        return p
    return None


def _read(path: Path) -> list[Scenario]:
    import yaml

    from gaia_eval.core.yamltext import load_yaml_all

    try:
        docs = load_yaml_all(path.read_text(encoding="utf-8"), str(path))
    except yaml.YAMLError as err:
        msg = f"{path}: not valid YAML ({err})"
        raise InvalidInputError(msg) from None
    return [validate(d, path) for d in docs if d is not None]


def load_tiers() -> dict[str, dict[str, Any]]:
    """ci_tiers.json's scenarios: id -> {tier, reason, leaves_full}."""
    path = data_dir() / "ci_tiers.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = data.get("scenarios")
    if not isinstance(rows, dict):
        msg = f"{path}: expected {{'scenarios': {{id: {{tier, reason}}}}}}"
        raise InvalidInputError(msg)
    for sid, row in rows.items():
        if not isinstance(row, dict) or row.get("tier") not in TIERS or not row.get("reason"):
            msg = f"{path}: scenarios.{sid} needs a tier ({', '.join(TIERS)}) and a reason"
            raise InvalidInputError(msg)
        if row.get("leaves_full") and row["tier"] != "backlog":
            msg = f"{path}: scenarios.{sid}: leaves_full is for backlog scenarios only"
            raise InvalidInputError(msg)
    return {
        k: {
            "tier": str(v["tier"]),
            "reason": str(v["reason"]),
            "leaves_full": bool(v.get("leaves_full", False)),
        }
        for k, v in rows.items()
    }


def _yaml_files(folder: Path) -> list[Path]:
    return sorted({*folder.rglob("*.yaml"), *folder.rglob("*.yml")})


def load_all(extra_dir: Path | None = None, *, allow_outside: bool = False) -> list[Loaded]:
    """Every scenario: the package's, then the user's folder's (`user_dir()`, by default
    ~/.gaia/eval/scenarios), then `extra_dir`'s (`--scenarios-dir`); ids must be unique
    across all three. `allow_outside` (the `--allow-outside` flag) admits documents
    outside their folder, as a scenario's own `setup.allow_outside` does."""
    tiers = load_tiers()
    sources: list[tuple[str, Path]] = [("shipped", data_dir() / "scenarios")]
    home = user_dir()
    if home is not None:
        sources.append(("~/.gaia/eval/scenarios", home))
    if extra_dir is not None:
        if not extra_dir.is_dir():
            msg = f"--scenarios-dir {extra_dir}: not a folder; name a folder of scenario YAML"
            raise InvalidInputError(msg)
        sources.append(("--scenarios-dir", extra_dir))
    out: list[Loaded] = []
    seen: dict[str, tuple[Path, str]] = {}
    read: set[Path] = set()
    for origin, folder in sources:
        for path in _yaml_files(folder):
            real = Path(os.path.realpath(path))
            if real in read:  # the same file through two sources (--scenarios-dir ~/.gaia/...)
                continue
            read.add(real)
            for sc in _read(path):
                if sc.id in seen:
                    first, where = seen[sc.id]
                    shipped = " (a shipped scenario)" if where == "shipped" else ""
                    msg = (
                        f"{path}: field 'id': scenario id {sc.id!r} is already used by "
                        f"{first}{shipped}; rename it (ids are unique across the shipped "
                        "scenarios, ~/.gaia/eval/scenarios and --scenarios-dir)"
                    )
                    raise InvalidInputError(msg)
                seen[sc.id] = (path, origin)
                row = (tiers.get(sc.id) if origin == "shipped" else None) or {
                    "tier": "custom",
                    "reason": f"yours ({origin}); not listed in ci_tiers.json",
                }
                admit = allow_outside or sc.setup.allow_outside
                docs = tuple(
                    resolve_document(d, path, index=i, allow_outside=admit)
                    for i, d in enumerate(sc.setup.index_documents)
                )
                out.append(
                    Loaded(sc, path, docs, row["tier"], row["reason"], bool(row.get("leaves_full")))
                )
    return out


def in_tier(loaded: Loaded, tier: str) -> bool:
    if tier == "all":
        return True
    if tier == "verify":
        raise InvalidInputError(VERIFY_TIER)
    if tier == "full":
        return loaded.tier in ("smoke", "full") or (
            loaded.tier == "backlog" and not loaded.leaves_full
        )
    return loaded.tier == tier


def effective_timeout(base_s: float, documents: int, turns: int, cap_s: float = 7200.0) -> float:
    """max(base, 240 + 90 x documents + 200 x turns), capped."""
    return min(cap_s, max(base_s, 240.0 + 90.0 * documents + 200.0 * turns))
