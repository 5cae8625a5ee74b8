"""The suites: what each runs, pinned (instances, commits, seeds)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from gaia_eval.core.errors import InvalidInputError

SAMPLE_SEED = 20260930
DATA_DIR = Path(__file__).parent / "data"
"""Shipped instance rows (data/README.md says where they come from)."""
T = TypeVar("T")
NIGHTLY_MAX_CHUNKS = 20_000
PARTS = ("quality", "incremental", "robustness", "scale")

REQUESTS_PROBES = (
    "how are redirects followed and limited",
    "where is the proxy configuration read from the environment",
    "encode the body of a POST request with form data",
    "merge session settings with request settings",
    "guess the encoding of the response text",
)
OFFLINE_PROBES = (
    "apply a percentage discount to a price",
    "load a warehouse from a CSV file",
    "move stock from one warehouse to another",
    "items that are running low on stock",
    "format the plain text stock report",
)
PR_INSTANCE_IDS = (
    "mwaskom__seaborn-3069",
    "mwaskom__seaborn-3187",
    "pallets__flask-5014",
    "psf__requests-1142",
    "psf__requests-1724",
    "psf__requests-1766",
    "psf__requests-1921",
    "psf__requests-2317",
    "psf__requests-2931",
    "psf__requests-5414",
    "psf__requests-6028",
)
# Tip of psf/requests that the pr suite's replay and robustness use (first-parent history).
REQUESTS_PIN = "1f6589ec3a1ee910f9a65cc3ceac60b26677bc0e"
FLASK_PIN = "2ac89889f4cc330eabd50f295dcef02828522c69"
# The scale suite's five trees (docs/code-retrieval.md), smallest first: a slow or failing
# large repository never costs the small ones their figures.
THEROCK_PIN = "89553ce3746eda74ade42557470d25e37c91b6f0"
GAIA_PIN = "78bbc3076bc329ec58bb2ad8bbe460d752c66d83"
# Not yet checked out by this project (each is larger than the snapshots its machine could
# fetch): a run that cannot obtain one reports it unmeasured with the reason, never a score.
# Replace a pin when a real run shows it missing upstream.
LLAMA_CPP_PIN = "3688c4f504f8e336663157bcc6e0af78d617420c"
DJANGO_PIN = "8b1ff0da4b162e87edebd94e61f2cd153e9e159d"
SCALE_REPOS = (
    ("psf/requests", REQUESTS_PIN),
    ("ROCm/TheRock", THEROCK_PIN),
    ("ggml-org/llama.cpp", LLAMA_CPP_PIN),
    ("django/django", DJANGO_PIN),
    ("amd/gaia", GAIA_PIN),
)


@dataclass(frozen=True)
class Suite:
    name: str
    parts: tuple[str, ...]
    instance_ids: tuple[str, ...] = ()
    """Pinned instance ids (empty: every row given)."""
    instances_file: str | None = None
    """Shipped JSONL in DATA_DIR holding the pinned rows (used without --instances-file)."""
    replay: tuple[str, str, int] | None = None
    """(repo, tip commit, commits) of the incremental replay."""
    robustness: tuple[str, str, str] | None = None
    """(repo, commit, folder) the robustness part damages."""
    probes: tuple[str, ...] = ()
    scale_repos: tuple[tuple[str, str], ...] = ()
    max_repo_chunks: int | None = None
    sample: int = 0
    """Seeded sample size from SWE-bench Verified (0: no sampling)."""
    rebench_splits: tuple[str, ...] = ()
    """SWE-rebench leaderboard splits to draw `rebench_per_split` instances from."""
    rebench_per_split: int = 0
    notes: list[str] = field(default_factory=list)


SUITES: dict[str, Suite] = {
    "offline": Suite(
        name="offline",
        parts=("quality", "incremental", "robustness", "scale"),
        replay=("gaia-eval/invtrack", "origin/main", 11),
        robustness=("gaia-eval/invtrack", "origin/main", "invtrack"),
        probes=OFFLINE_PROBES,
        scale_repos=(("gaia-eval/invtrack", "origin/main"),),
    ),
    "pr": Suite(
        name="pr",
        parts=("quality", "incremental", "robustness"),
        instance_ids=PR_INSTANCE_IDS,
        instances_file="swebench-pr-subset.jsonl",
        replay=("psf/requests", REQUESTS_PIN, 11),
        robustness=("psf/requests", REQUESTS_PIN, "src/requests"),
        probes=REQUESTS_PROBES,
    ),
    "nightly": Suite(
        name="nightly",
        parts=("quality", "incremental", "robustness"),
        replay=("pallets/flask", FLASK_PIN, 31),
        robustness=("psf/requests", REQUESTS_PIN, "src/requests"),
        probes=REQUESTS_PROBES,
        max_repo_chunks=NIGHTLY_MAX_CHUNKS,
        sample=20,
        rebench_splits=("2026_01", "2026_02", "2026_03"),
        rebench_per_split=2,
    ),
    "scale": Suite(
        name="scale",
        parts=("scale",),
        scale_repos=SCALE_REPOS,
    ),
}


def get(name: str) -> Suite:
    try:
        return SUITES[name]
    except KeyError:
        msg = f"--suite {name!r}: unknown; choose one of {', '.join(SUITES)}"
        raise InvalidInputError(msg) from None


def select_parts(suite: Suite, asked: list[str] | None) -> list[str]:
    if not asked:
        return list(suite.parts)
    for p in asked:
        if p not in suite.parts:
            msg = f"--parts {p}: the {suite.name} suite has only {', '.join(suite.parts)}"
            raise InvalidInputError(msg)
    return [p for p in PARTS if p in asked]


def seeded_sample(
    pool: list[T], n: int, seed: int, fits: Callable[[T], bool], key: Callable[[T], str]
) -> list[T]:
    """Sort, shuffle with the seed, walk skipping what does not fit, stop at n, sort by id."""
    order = sorted(pool, key=key)
    random.Random(seed).shuffle(order)
    picks: list[T] = []
    for item in order:
        if len(picks) == n:
            break
        if fits(item):
            picks.append(item)
    if len(picks) < n:
        msg = f"only {len(picks)} of the {n} sampled instances fit the size cap"
        raise InvalidInputError(msg)
    return sorted(picks, key=key)
